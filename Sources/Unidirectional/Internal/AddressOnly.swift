/// A field that makes the struct holding it address-only: passed and used in place, by address.
///
/// Why: a composed reducer is a large value (each one holds the reducers below it). Large
/// loadable structs are moved into registers and spilled back to the stack around calls, so
/// each level's call to the level below copied the whole subtree (`memcpy`, on every action).
/// An existential container, even of `()`, makes the type address-only, and the copies go.
@usableFromInline
struct AddressOnly: Sendable {
  @usableFromInline let box: any Sendable = ()

  @inlinable
  init() {}
}
