/// A type-erased, sendable cancellation identifier.
///
/// `AnyHashable` is not `Sendable`, so identifiers are kept as `any Hashable & Sendable` and
/// compared through `AnyHashable` only when needed.
@usableFromInline
struct EffectID: Hashable, Sendable {
  let base: any Hashable & Sendable

  init(_ base: some Hashable & Sendable) {
    self.base = base
  }

  @usableFromInline
  static func == (lhs: Self, rhs: Self) -> Bool {
    AnyHashable(lhs.base) == AnyHashable(rhs.base)
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    AnyHashable(base).hash(into: &hasher)
  }
}

/// A cancellation id under which a child feature's effects run (an `ifLet` child, a `forEach`
/// element): once the child is gone, its effects are cancelled, and an action one of them sent
/// that was still waiting to be reduced is dropped and reported, never given to a new child.
protocol ChildEffectsID: Hashable, Sendable {}
