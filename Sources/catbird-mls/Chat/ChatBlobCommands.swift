import ArgumentParser
import ChatProtocol
import Foundation
import MLSClient

/// The image of `send-image` and `set-avatar`: the conversation, the file, and what the embed says of it.
struct ChatImageArguments: ParsableArguments {
    @Argument(help: "Conversation id.")
    var convo: String

    @Argument(help: "The image file.")
    var file: String

    @Option(help: "Its media type: image/heic, image/jpeg, image/png or image/webp.")
    var mimeType: String = "image/png"

    @Option(help: "Width in pixels.")
    var width: UInt64 = 1

    @Option(help: "Height in pixels.")
    var height: UInt64 = 1

    func validate() throws {
        guard ["image/heic", "image/jpeg", "image/png", "image/webp"].contains(mimeType) else {
            throw ValidationError("--mime-type is image/heic, image/jpeg, image/png or image/webp")
        }
        guard (1...16_384).contains(width), (1...16_384).contains(height) else { throw ValidationError("width and height are 1...16384") }
    }

    /// The conversation and the file's bytes.
    func load() throws -> (ChatUUID, [UInt8]) { (try ChatOptions.conversation(convo), try ChatFiles.read(file)) }
}

/// `chat send-image` (prepareBlobUpload, uploadBlob, then sendMessage binding the blob).
struct ChatSendImage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-image",
        abstract: "Encrypt an image, upload it in the contract's two steps and send a message carrying its key.")

    @OptionGroup var options: ChatOptions
    @OptionGroup var image: ChatImageArguments

    @Option(help: "A caption.")
    var text: String?

    func run() throws {
        let (id, bytes) = try image.load()
        let entry = try options.withClient {
            try $0.sendImage(id, bytes: bytes, mimeType: image.mimeType, width: image.width, height: image.height, text: text)
        }
        if options.global.json { return Output.line(ChatOptions.json(entry)) }
        let blob = entry["signedRequest"]?["body"]?["blobBindings"]?.array?.first?["blobId"]?.uuid
        Output.line("sent #\(entry["seq"]?.integer ?? 0) with blob \(blob?.description ?? "?")")
    }
}

/// `chat get-blob` (getBlob): the ciphertext as the service hands it to this device.
struct ChatGetBlob: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get-blob", abstract: "Download a blob's ciphertext, if this device may read it.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Blob id.")
    var blob: String

    @Option(help: "Write the bytes here.")
    var out: String?

    func run() throws {
        guard let id = ChatUUID(blob) else { throw ValidationError("not a blob id (a lowercase UUID): \(blob)") }
        let bytes = try options.withClient(save: false) { try $0.api.getBlob(id, device: $0.device.deviceID) }
        if let out { try ChatFiles.write(bytes, to: out) }
        Output.line("fetched \(bytes.count) bytes of \(id)")
    }
}

/// `chat set-avatar` (prepareBlobUpload and uploadBlob of a metadata blob, then a metadataTransition).
struct ChatSetAvatar: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-avatar", abstract: "Set a group's avatar (an admin): the image encrypted, uploaded, and named by new metadata.")

    @OptionGroup var options: ChatOptions
    @OptionGroup var image: ChatImageArguments

    func run() throws {
        let (id, bytes) = try image.load()
        let output = try options.withClient {
            try $0.setAvatar(id, bytes: bytes, mimeType: image.mimeType, width: image.width, height: image.height)
        }
        if options.global.json { return Output.line(ChatOptions.json(output)) }
        Output.line("avatar of \(id) set: \(bytes.count) bytes")
    }
}

/// `chat avatar`: the avatar the current metadata names, downloaded and decrypted.
struct ChatAvatar: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "avatar", abstract: "Download and decrypt a conversation's avatar.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Option(help: "Write the image here.")
    var out: String?

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        guard let image = try options.withClient({ try $0.avatar(id) }) else { return Output.line("no avatar") }
        if let out { try ChatFiles.write(image, to: out) }
        Output.line("avatar: \(image.count) bytes")
    }
}

/// Files the blob commands read and write.
enum ChatFiles {
    /// At most 10 MiB less the AES-GCM tag: the contract's largest blob.
    static func read(_ path: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: path)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
        guard let size, (1...10_485_744).contains(size) else { throw ValidationError("\(path): not a file of 1 B to 10 MiB - 16 B") }
        return [UInt8](try Data(contentsOf: url))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
