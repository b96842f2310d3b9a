/// A field that makes the struct holding it address-only: passed and used in place, by address.
///
/// Why: a composed reducer is a large value (each one holds the reducers below it). Large
/// loadable structs are moved into registers and spilled back to the stack around calls, so
/// each level's call to the level below copied the whole subtree (`memcpy`, on every action).
/// An existential container makes the type address-only, and the copies go.
///
/// An empty optional one: a `body` makes and destroys its reducers on every action, and
/// destroying `nil` is a test of the metadata word, where destroying `()` in a container went
/// through its value witnesses (P0 and P1, with three such reducers, 35 instructions fewer).
@usableFromInline
struct AddressOnly: Sendable {
  @usableFromInline let box: (any Sendable)? = nil

  @inlinable
  init() {}
}
