#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Making probes: how a value of a type is compared (`ChangeRule`), and the probe each kind of
// read (stored property, computed key path, element of an identified array) gets.

@usableFromInline
enum ChangeRule<Value> {
  case compare((Value, Value) -> Bool)
  case always

  /// The rule for `Value`, found once per probe by dynamic casts.
  @inlinable
  static var forType: ChangeRule<Value> {
    if let equatable = Value.self as? any Equatable.Type {
      return .compare(unchangedByEquality(equatable))
    }
    if Value.self is AnyObject.Type {
      return .compare { ($0 as AnyObject) === ($1 as AnyObject) }
    }
    return .always
  }

  /// `==` (identical bits are checked by `orIdentical`, where they may be the same).
  @inlinable
  static func unchangedByEquality<E: Equatable>(_: E.Type) -> (Value, Value) -> Bool {
    // `Value == E` here: the casts only recover the conformance the dynamic check found.
    { unsafeBitCast($0, to: E.self) == unsafeBitCast($1, to: E.self) }
  }

  /// The rule for `Value`, comparing values where they are (see `ValueProbe.take(at:by:)`);
  /// `nil` for a type whose values always count as changed. Found once per probe by dynamic
  /// casts, as `forType`.
  @inlinable
  static var forPointees: ((UnsafePointer<Value>, UnsafePointer<Value>) -> Bool)? {
    if let equatable = Value.self as? any Equatable.Type {
      return pointeesUnchangedByEquality(equatable)
    }
    if Value.self is AnyObject.Type {
      return { ($0.pointee as AnyObject) === ($1.pointee as AnyObject) }
    }
    return nil
  }

  /// `==` on the values two pointers address.
  @inlinable
  static func pointeesUnchangedByEquality<E: Equatable>(
    _: E.Type
  ) -> (UnsafePointer<Value>, UnsafePointer<Value>) -> Bool {
    // `Value == E` here: the casts only recover the conformance the dynamic check found.
    {
      UnsafeRawPointer($0).assumingMemoryBound(to: E.self).pointee
        == UnsafeRawPointer($1).assumingMemoryBound(to: E.self).pointee
    }
  }

  /// The comparison, for a rule known to compare.
  @inlinable
  var comparison: (Value, Value) -> Bool {
    guard case .compare(let isUnchanged) = self else { preconditionFailure("not a comparison") }
    return isUnchanged
  }

  /// The rule with a check of identical bits first: a value with the same bits is unchanged
  /// (so a `Double.nan` that keeps its bits is unchanged).
  @inlinable
  var orIdentical: ChangeRule<Value> {
    switch self {
    case .compare(let isUnchanged): .compare { bitwiseIdentical($0, $1) || isUnchanged($0, $1) }
    case .always: .always
    }
  }

  /// The rule for an optional of `Value` (an element read, `nil` when the element is absent).
  @inlinable
  var optional: ChangeRule<Value?> {
    switch self {
    case .compare(let isUnchanged):
      .compare { old, new in
        switch (old, new) {
        case (nil, nil): true
        case (let old?, let new?): isUnchanged(old, new)
        default: false
        }
      }
    case .always: .always
    }
  }
}

/// Whether two values have the same bits (and so, for a value whose old copy is still alive,
/// the same storage).
@inlinable @inline(__always)
func bitwiseIdentical<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  let size = MemoryLayout<Value>.size
  guard size > 0 else { return true }
  return withUnsafeBytes(of: lhs) { left in
    withUnsafeBytes(of: rhs) { right in
      memcmp(left.baseAddress!, right.baseAddress!, size) == 0
    }
  }
}

/// Whether `==` on `Value` is bit equality: true for the fixed-width integer types and `Bool`,
/// whose values are equal exactly when their bits are. Folds to a constant where `Value` is
/// known, so that a probe of such a value compares inline, not through its rule's closures
/// (about 25 instructions per refresh).
@inlinable @inline(__always)
func hasBitwiseEquality<Value>(_: Value.Type) -> Bool {
  Value.self == Int.self || Value.self == UInt.self || Value.self == Bool.self
    || Value.self == Int64.self || Value.self == UInt64.self || Value.self == Int32.self
    || Value.self == UInt32.self || Value.self == Int16.self || Value.self == UInt16.self
    || Value.self == Int8.self || Value.self == UInt8.self
}

/// Whether `new` is unchanged from `old` by `rule`, compared inline for a value whose `==` is
/// bit equality (see `hasBitwiseEquality`).
@inlinable @inline(__always)
func isUnchanged<Value>(_ old: Value, _ new: Value, by rule: (Value, Value) -> Bool) -> Bool {
  hasBitwiseEquality(Value.self) ? bitwiseIdentical(old, new) : rule(old, new)
}

/// `isUnchanged(_:_:by:)` for an optional (an element read, `nil` when the element is absent):
/// two `nil`s are unchanged, and one is changed from any value.
@inlinable @inline(__always)
func isUnchanged<Value>(_ old: Value?, _ new: Value?, by rule: (Value?, Value?) -> Bool) -> Bool {
  guard hasBitwiseEquality(Value.self) else { return rule(old, new) }
  switch (old, new) {
  case (nil, nil): return true
  case (let old?, let new?): return bitwiseIdentical(old, new)
  default: return false
  }
}

extension KeyPath {
  /// A probe of this key path of the state, holding `value`, the value just read on the state
  /// of `generation`.
  ///
  /// Inlinable, so that the probe's refresh is made where `Root` and `Value` are known: the
  /// generic `ValueProbe.refresh` compares through the `Equatable` witness table and copies
  /// values through value witnesses.
  ///
  /// - Parameter offset: The stored offset of the key path (`MemoryLayout.offset(of:)`), if any.
  @inlinable
  func makeProbe(value: Value, offset: Int?, generation: UInt64) -> Probe {
    if let offset {
      guard let isUnchanged = ChangeRule<Value>.forPointees else {
        return Probe.alwaysChanged(keyPath: self, generation: generation)
      }
      // Refreshed only when its bytes changed: then `==` alone; after any action, identical
      // bits first (see `Probe.refreshAfterAnyAction`). Compared where the values are, in the
      // state and in the probe: copies to compare would retain and release what they hold.
      return ValueProbe(
        kind: .stored, isSafe: true, keyPath: self,
        byteRange: offset..<(offset + MemoryLayout<Value>.size), generation: generation,
        value: value
      ) { state, probe, afterAnyAction in
        // Made for this probe, which is a `ValueProbe<Value>`; the state holds a `Value` at
        // `offset`.
        unsafeDowncast(probe, to: ValueProbe<Value>.self).take(
          at: (state + offset).assumingMemoryBound(to: Value.self), by: isUnchanged,
          afterAnyAction: afterAnyAction)
      }
    }
    switch ChangeRule<Value>.forType {
    case .always:
      return Probe.alwaysChanged(keyPath: self, generation: generation)
    case .compare(let isUnchanged):
      // The rule counts identical bits as unchanged, after any action as after a write.
      let isUnchangedOrIdentical = ChangeRule.compare(isUnchanged).orIdentical.comparison
      return ValueProbe(
        kind: .computed, isSafe: false, keyPath: self, generation: generation, value: value
      ) { state, probe, _ in
        unsafeDowncast(probe, to: ValueProbe<Value>.self).take(
          state.assumingMemoryBound(to: Root.self).pointee[keyPath: self],
          by: isUnchangedOrIdentical, afterAnyAction: false)
      }
    }
  }
}

extension KeyPath {
  /// A probe of this key path of an optional value, for a read through a child store: once the
  /// value is `nil`, the read is answered by `fallback` (from the child's last state), with
  /// `reader` identifying that child.
  func makeFallbackProbe<Wrapped>(
    value: Wrapped?, generation: UInt64, reader: UInt64,
    fallback: @escaping () -> Wrapped
  ) -> Probe where Value == Wrapped? {
    guard case .compare(let isUnchanged) = ChangeRule<Wrapped>.forType.optional.orIdentical
    else {
      return Probe.alwaysChanged(keyPath: self, reader: reader, generation: generation)
    }
    return ValueProbe(
      kind: .computed, isSafe: false, keyPath: self, reader: reader, generation: generation,
      value: value
    ) { state, probe, afterAnyAction in
      unsafeDowncast(probe, to: ValueProbe<Wrapped?>.self).take(
        optional: state.assumingMemoryBound(to: Root.self).pointee[keyPath: self] ?? fallback(),
        by: isUnchanged, afterAnyAction: afterAnyAction)
    }
  }
}

/// Makes the probe of `field` inside the element `id` of the array at `array`, holding `value`,
/// the value just read on the state of `generation`.
///
/// - Parameter arrayOffset: The stored offset of the array in the state, if any. Without one,
///   the read is a computed one (evaluated in order after every action).
///
/// - Parameter fallback: For a read through a child store: answers, once the element is gone,
///   from the child's last state (so that the removal of an element is no change to the read),
///   with `reader` identifying it.
@inlinable
func makeElementProbe<State, Element: Identifiable, Value>(
  array: KeyPath<State, IdentifiedArray<Element>>, arrayOffset: Int?, id: Element.ID,
  field: KeyPath<Element, Value>, value: Value?, generation: UInt64,
  reader: UInt64? = nil, fallback: (() -> Value)? = nil
) -> Probe {
  let fieldOffset = MemoryLayout<Element>.offset(of: field)
  let kind: Probe.Kind
  let isUnchanged: (Value?, Value?) -> Bool
  switch ChangeRule<Value>.forType.optional.orIdentical {
  case .always where arrayOffset == nil:
    kind = .alwaysChanged
    isUnchanged = { _, _ in false }
  case .always:
    // A value that cannot be compared changes only when its element is written: changed after
    // every write to the element.
    kind = .element
    isUnchanged = { _, _ in false }
  case .compare(let rule):
    // Without a stored array, nothing tells when the element was written: a computed read.
    kind = arrayOffset == nil ? .computed : .element
    isUnchanged = rule
  }
  let lookUp: (UnsafeRawPointer) -> Value?
  if let arrayOffset {
    lookUp = { state in
      IdentifiedArray<Element>.value(
        in: (state + arrayOffset).assumingMemoryBound(to: IdentifiedArray<Element>.self), id: id,
        field: field, fieldOffset: fieldOffset)
    }
  } else {
    lookUp = { state in
      state.assumingMemoryBound(to: State.self).pointee[keyPath: array]
        .value(id: id, field: field, fieldOffset: fieldOffset)
    }
  }
  let read: (UnsafeRawPointer) -> Value?
  if let fallback {
    read = { state in lookUp(state) ?? fallback() }
  } else {
    read = lookUp
  }
  return ElementProbe(
    kind: kind, isSafe: arrayOffset != nil && fieldOffset != nil, field: field,
    arrayKeyPath: array, id: id, idHash: elementIDHash(id), reader: reader, generation: generation,
    value: value, readWrites: IdentifiedArray<Element>.writesReader(atOffset: arrayOffset ?? 0)
  ) { state, probe, afterAnyAction in
    // Made for this probe, which is a `ValueProbe<Value?>`. After any action, identical bits
    // count as unchanged even for a value that cannot be compared.
    unsafeDowncast(probe, to: ValueProbe<Value?>.self).take(
      optional: read(state), by: isUnchanged, afterAnyAction: afterAnyAction)
  }
}

extension IdentifiedArray {
  /// The value at `field` of the element with `id`, or `nil` if there is none: a load when the
  /// field is stored (`fieldOffset`).
  @inlinable
  func value<Value>(id: Element.ID, field: KeyPath<Element, Value>, fieldOffset: Int?) -> Value? {
    // The last updated position first: observers read the row an action just edited.
    let hinted = lastUpdatedPosition
    let position: Int
    if hinted < elements.count, elements[hinted].id == id {
      position = hinted
    } else {
      guard let found = positions[id] else { return nil }
      position = found
    }
    if let fieldOffset {
      return elements.withUnsafeBufferPointer { buffer in
        UnsafeRawPointer(buffer.baseAddress! + position).load(
          fromByteOffset: fieldOffset, as: Value.self)
      }
    }
    return elements[position][keyPath: field]
  }

  /// ``value(id:field:fieldOffset:)`` of the array at `array`, read in place: calling the method
  /// on `array.pointee` copies the whole array value first (retaining its storage).
  @inlinable
  static func value<Value>(
    in array: UnsafePointer<IdentifiedArray>, id: Element.ID, field: KeyPath<Element, Value>,
    fieldOffset: Int?
  ) -> Value? {
    guard let position = IdentifiedArray.position(of: id, in: array) else { return nil }
    if let fieldOffset {
      return array.pointee.elements.withUnsafeBufferPointer { buffer in
        UnsafeRawPointer(buffer.baseAddress! + position).load(
          fromByteOffset: fieldOffset, as: Value.self)
      }
    }
    return array.pointee.elements[position][keyPath: field]
  }
}
