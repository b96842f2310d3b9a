import Synchronization

/// One navigation child's life, as its effects' `Send`s see it: it ends when the child's effects
/// are cancelled through the child's id (a `ChildEffectsID`), because the child was dismissed,
/// popped, removed or replaced.
///
/// The runtime makes one per child id the first time a task starts under that id, and forgets
/// it when the id is cancelled, so a later child with an equal id (a row added back, an `ifLet`
/// child presented again) gets a new one. Every effect task of the child, and every `Send` it
/// hands out, holds it: a `Send` called from a task the store does not track (an unstructured
/// task, a Dispatch queue, a C callback) still knows that its child is gone.
///
/// The runtime holds it weakly: once nothing holds it (the child's tasks ended, and no `Send` or
/// queued action of theirs is left), nothing can act for the child any more, and the store stops
/// watching it (`EffectRuntime.checkWatches`).
@usableFromInline
final class ChildLifetime: Sendable {
  private let ended = Atomic<Bool>(false)

  /// Counts this life's release, so that the runtime knows when to forget what it kept for it.
  private let releases: ReleaseCounter

  init(releases: ReleaseCounter) {
    self.releases = releases
  }

  deinit {
    releases.count.add(1, ordering: .releasing)
  }

  /// Whether the child is gone.
  var hasEnded: Bool { ended.load(ordering: .acquiring) }

  /// The child is gone. Called after its effect tasks were cancelled, so that a structured task
  /// of the child that sees the end also sees its own cancellation (and stays silent).
  func end() { ended.store(true, ordering: .releasing) }

  /// How many of one runtime's child lives were released.
  final class ReleaseCounter: Sendable {
    let count = Atomic<Int>(0)
  }
}
