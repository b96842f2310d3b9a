import Testing
import Unidirectional

/// The durable log's entry checksum against published CRC-32C test vectors.
@Suite struct CRC32CTests {
  /// RFC 3720 (iSCSI), appendix B.4, the customary check value of `123456789`, and no bytes.
  static let vectors: [([UInt8], UInt32)] = [
    ([UInt8](repeating: 0x00, count: 32), 0x8A91_36AA),
    ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
    ([UInt8](0x00...0x1F), 0x46DD_794E),
    ([UInt8]((0x00...0x1F).reversed()), 0x113F_DB5C),
    (Array("123456789".utf8), 0xE306_9283),
    ([], 0x0000_0000),
  ]

  @Test(arguments: vectors)
  func publishedVectors(bytes: [UInt8], expected: UInt32) {
    #expect(CRC32C.checksum(bytes) == expected)
  }
}
