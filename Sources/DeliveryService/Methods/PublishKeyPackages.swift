import DeliveryStore
import Lexicon

/// `blue.catbird.mls.publishKeyPackages`: up to 100 KeyPackages, each validated and stored on its own.
enum PublishKeyPackages {
    typealias Item = PublishKeyPackagesInput.Item
    typealias Input = PublishKeyPackagesInput
    typealias ItemError = PublishKeyPackagesOutput.ItemError
    typealias Output = PublishKeyPackagesOutput

    static let maxBatch = 100

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.publishKeyPackages", .procedure, maxBodySize: 10 << 20) { context in
            let caller = context.caller
            let input = try context.input(Input.self)
            guard input.keyPackages.count <= maxBatch else {
                throw XRPCError(400, .batchTooLarge, "at most \(maxBatch) KeyPackages per call")
            }
            var errors: [ItemError] = []
            var valid: [(index: Int, package: NewKeyPackage)] = []
            for (index, item) in input.keyPackages.enumerated() {
                do throws(XRPCError) {
                    valid.append((index, try PublishKeyPackage.validate(item.keyPackage.bytes, cipherSuite: item.cipherSuite,
                                                                        expires: item.expires, lastResort: item.lastResort,
                                                                        caller: caller, env: env)))
                } catch {
                    errors.append(ItemError(index: index, error: error.name.rawValue, message: error.message))
                }
            }
            let results = try env.store.publishKeyPackages(valid.map(\.package))
            for (entry, result) in zip(valid, results) {
                if case .failure(let error) = result {
                    if case .database(let storeError) = error { throw storeError }
                    let xrpc = error.xrpcError ?? .internalError
                    errors.append(ItemError(index: entry.index, error: xrpc.name.rawValue, message: xrpc.message))
                }
            }
            errors.sort { $0.index < $1.index }
            return .json(Output(succeeded: input.keyPackages.count - errors.count, failed: errors.count,
                                errors: errors.isEmpty ? nil : errors))
        }
    }
}
