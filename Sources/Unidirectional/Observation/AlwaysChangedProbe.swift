/// A probe of a value that can be compared neither by value nor by identity: changed after every
/// action, and never evaluated.
@usableFromInline
final class AlwaysChangedProbe: Probe, @unchecked Sendable {
  // Safe: as `Probe`, used by one thread at a time.

  @usableFromInline
  init(keyPath: AnyKeyPath, reader: UInt64? = nil, generation: UInt64) {
    super.init(
      kind: .alwaysChanged, isSafe: true, keyPath: keyPath, reader: reader,
      generation: generation)
  }

  override func refresh(_ state: UnsafeRawPointer) -> Bool {
    true
  }
}
