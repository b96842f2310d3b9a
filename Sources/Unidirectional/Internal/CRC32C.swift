/// CRC-32C (Castagnoli): polynomial 0x1EDC6F41, processed reflected (0x82F63B78), initial value
/// and final XOR 0xFFFFFFFF, as in iSCSI (RFC 3720), ext4 and SSE 4.2's `crc32` instruction.
///
/// Table-driven, one byte at a time: a durable log checksums each entry once, as it writes it,
/// and again when recovery reads it, so a few hundred megabytes per second is plenty.
package enum CRC32C {
  /// The CRC of every byte value, for the reflected polynomial.
  private static let table: [UInt32] = (0..<256).map { byte in
    var crc = UInt32(byte)
    for _ in 0..<8 {
      crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
    }
    return crc
  }

  /// The CRC-32C of `bytes`.
  ///
  /// - Parameter bytes: The bytes to check, in order.
  /// - Returns: The checksum; 0xE3069283 for the ASCII bytes of `123456789`.
  package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
    let table = Self.table
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
    }
    return crc ^ 0xFFFF_FFFF
  }
}
