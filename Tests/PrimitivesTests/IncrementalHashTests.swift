import Basics
import Primitives
import XCTest

final class IncrementalHashTests: XCTestCase {
    func test_pieceByPiece_equalsOneShot_forEverySHA2() {
        let data = (0..<200_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for algorithm in HashAlgorithm.allCases {
            let hash = IncrementalHash(algorithm)
            var offset = 0
            // Uneven pieces, including empty ones, must not change the result.
            for size in [0, 1, 63, 64, 65, 0, 4096, 65_536] where offset < data.count {
                let end = min(data.count, offset + size)
                hash.update(Array(data[offset..<end]))
                offset = end
            }
            hash.update(Array(data[offset...]))
            XCTAssertEqual(hash.finalize(), algorithm.hash(data), "\(algorithm)")
        }
    }

    func test_knownAnswers_abcInThreePieces_andEmptyInput() {
        let hash = IncrementalHash(.sha256)
        for piece in ["a", "b", "c"] { hash.update(Array(piece.utf8)) }
        XCTAssertEqual(Hex.encode(hash.finalize()),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(Hex.encode(IncrementalHash(.sha256).finalize()),
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
