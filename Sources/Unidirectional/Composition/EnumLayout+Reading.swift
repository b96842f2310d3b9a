// Reading a type's metadata and reflection records (see "How it reads the runtime, and why that
// is sound" in `EnumLayout`'s documentation).

extension EnumLayout {
  static func read(_ type: Any.Type) -> EnumLayout? {
    let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    let kind = metadata.load(as: UInt.self)
    guard kind == 0x201 || kind == 0x202 else { return nil }
    let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer.self)
    // TypeContextDescriptor: flags, parent, name, access function, fields (relative pointers),
    // then for enums NumPayloadCasesAndPayloadSizeOffset (low 24 bits: payload cases).
    let fieldsOffset = descriptor.load(fromByteOffset: 16, as: Int32.self)
    guard fieldsOffset != 0 else { return nil }
    let fields = descriptor + 16 + Int(fieldsOffset)
    // FieldDescriptor: mangled name, superclass, kind (UInt16), record size (UInt16), count.
    let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
    let recordCount = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
    let genericArguments = UnsafeRawPointer(metadata + 2 * MemoryLayout<UnsafeRawPointer>.size)
    var cases: [Case] = []
    cases.reserveCapacity(recordCount)
    for index in 0..<recordCount {
      // FieldRecord: flags (bit 0: indirect), mangled type name, field name.
      let record = fields + 16 + index * recordSize
      let flags = record.load(as: UInt32.self)
      let nameOffset = record.load(fromByteOffset: 4, as: Int32.self)
      var payloadType: Any.Type?
      // Cases with an empty payload (`case c(Empty)`) count as cases without one in the
      // layout, but still have a payload type.
      if nameOffset != 0 {
        let name = (record + 4 + Int(nameOffset)).assumingMemoryBound(to: UInt8.self)
        guard
          let resolved = _getTypeByMangledNameInContext(
            name, UInt(mangledNameLength(name)), genericContext: descriptor,
            genericArguments: genericArguments)
        else { return nil }
        let type = unwrappingSingleElementTuple(resolved)
        payloadType = isStoredAlikeEverywhere(type) ? type : nil
      }
      cases.append(Case(payloadType: payloadType, isIndirect: flags & 1 != 0))
    }
    let storage = UnsafeMutableBufferPointer<Case>.allocate(capacity: cases.count)
    _ = storage.initialize(from: cases)
    let witnesses = metadata.load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return EnumLayout(
      metadata: metadata, cases: UnsafeBufferPointer(storage),
      getEnumTag: unsafeBitCast(
        witnesses.load(fromByteOffset: 88, as: UnsafeRawPointer.self), to: GetEnumTag.self),
      projectEnumData: unsafeBitCast(
        witnesses.load(fromByteOffset: 96, as: UnsafeRawPointer.self), to: ProjectEnumData.self))
  }

  /// The length of a mangled name, which may embed symbolic references (a control byte and a
  /// 4-byte relative or pointer-sized absolute reference, which can contain zero bytes).
  static func mangledNameLength(_ name: UnsafePointer<UInt8>) -> Int {
    var length = 0
    while true {
      switch name[length] {
      case 0: return length
      case 0x01...0x17: length += 1 + 4
      case 0x18...0x1F: length += 1 + MemoryLayout<UnsafeRawPointer>.size
      default: length += 1
      }
    }
  }

  /// Whether values of `type` are stored the same way in a case of a concrete enum and in a
  /// generic `Value`. Functions and metatypes are not: their representation depends on the
  /// context (a closure stored in `case c((Int) -> Int)` takes its argument directly, one in
  /// a generic context indirectly; `Int.Type` may be stored as nothing at all), nor are tuples
  /// or optionals holding them (the compiler lays both out for their concrete elements). Cases with such payloads are never matched by a derived case path.
  private static func isStoredAlikeEverywhere(_ type: Any.Type) -> Bool {
    let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    switch metadata.load(as: UInt.self) {
    case 0x302, 0x304, 0x306:  // function, metatype, existential metatype
      return false
    case 0x202:  // Optional: stores its payload at the payload's own abstraction, like a tuple
      return isStoredAlikeEverywhere(
        unsafeBitCast(
          metadata.load(fromByteOffset: 16, as: UnsafeRawPointer.self), to: Any.Type.self))
    case 0x301:  // tuple
      let count = metadata.load(fromByteOffset: 8, as: Int.self)
      return (0..<count).allSatisfy { index in
        isStoredAlikeEverywhere(
          unsafeBitCast(
            metadata.load(fromByteOffset: 24 + index * 16, as: UnsafeRawPointer.self),
            to: Any.Type.self))
      }
    default:
      return true
    }
  }

  /// `(x: Int)`, the payload type of `case c(x: Int)`, is laid out as an `Int`.
  private static func unwrappingSingleElementTuple(_ type: Any.Type) -> Any.Type {
    let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    // Tuple metadata: kind 0x301, element count, labels, then (type, offset) per element.
    guard metadata.load(as: UInt.self) == 0x301, metadata.load(fromByteOffset: 8, as: Int.self) == 1
    else { return type }
    return unsafeBitCast(
      metadata.load(fromByteOffset: 24, as: UnsafeRawPointer.self), to: Any.Type.self)
  }

  /// Whether a payload of type `payload` may be read as a `value`: the same type, or tuples
  /// whose elements are the same types (labels do not change the layout).
  @usableFromInline
  static func payload(_ payload: Any.Type, isLaidOutAs value: Any.Type) -> Bool {
    if payload == value { return true }
    let payloadMetadata = unsafeBitCast(payload, to: UnsafeRawPointer.self)
    let valueMetadata = unsafeBitCast(value, to: UnsafeRawPointer.self)
    guard payloadMetadata.load(as: UInt.self) == 0x301, valueMetadata.load(as: UInt.self) == 0x301
    else { return false }
    let count = payloadMetadata.load(fromByteOffset: 8, as: Int.self)
    guard valueMetadata.load(fromByteOffset: 8, as: Int.self) == count else { return false }
    for index in 0..<count {
      let offset = 24 + index * 16
      guard
        payloadMetadata.load(fromByteOffset: offset, as: UnsafeRawPointer.self)
          == valueMetadata.load(fromByteOffset: offset, as: UnsafeRawPointer.self)
      else { return false }
    }
    return true
  }
}
