import Foundation

/// Runs `body` repeatedly for about `seconds`, prints operations per second and returns them.
@discardableResult
func measure(_ name: String, seconds: Double = 1.0, _ body: () throws -> Void) rethrows -> Double {
    for _ in 0..<10 { try body() }
    var iterations = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let budget = UInt64(seconds * 1e9)
    var elapsed: UInt64 = 0
    while elapsed < budget {
        for _ in 0..<20 { try body() }
        iterations += 20
        elapsed = DispatchTime.now().uptimeNanoseconds - start
    }
    let rate = Double(iterations) / (Double(elapsed) / 1e9)
    let padded = name + String(repeating: " ", count: max(0, 44 - name.count))
    print("\(padded) \(String(Int(rate.rounded())).leftPadded(9)) ops/s  (\(Int((1e6 / rate).rounded())) µs/op)")
    return rate
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
