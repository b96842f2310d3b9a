/// A writable key path, and the offset of the value it names when that value is stored inline
/// in the root (a chain of stored struct properties).
///
/// Why: reading or writing through a `WritableKeyPath` is a call into the runtime's key path
/// interpreter (`swift_modifyAtWritableKeyPath` and a coroutine), tens of instructions per
/// level of composition on every action. With the offset known, the composition reducers reach
/// the child state with pointer arithmetic instead; paths that are not plain stored properties
/// (computed properties, property wrappers, `didSet`, subscripts) keep the key path.
@usableFromInline
struct FieldPath<Root, Value>: @unchecked Sendable {
  // Safe: key paths are immutable; their captured subscript arguments are fixed at creation.
  @usableFromInline let keyPath: WritableKeyPath<Root, Value>
  /// `MemoryLayout<Root>.offset(of: keyPath)`: where the value lives inside a `Root`, if it is
  /// stored inline there.
  @usableFromInline let offset: Int?

  @inlinable
  init(_ keyPath: WritableKeyPath<Root, Value>) {
    self.keyPath = keyPath
    self.offset = MemoryLayout<Root>.offset(of: keyPath)
  }
}
