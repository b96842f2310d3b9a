import Synchronization

/// Which recorder the reads of one thread go to: one per thread, made by its first install and
/// kept until the thread exits, so that installing a recorder for a run is a store into it, not
/// a `pthread_setspecific` (about 35 instructions, twice per batch of observer runs).
@usableFromInline
final class ThreadRecorder: @unchecked Sendable {
  // Safe: `current` is used only by its thread (reached through the thread-local slot, or
  // through a recorder that checked it is on that thread); `isAlive` is atomic.

  /// The recorder installed on the thread, unretained: it is alive for as long as it is
  /// installed (see `AccessRecorder.install`).
  @usableFromInline @exclusivity(unchecked) var current: Unmanaged<AccessRecorder>?

  /// Whether its thread still runs: cleared when the thread exits (see `AccessRecorder.slot`).
  /// Atomic: the recorders that keep it read it on other threads.
  let isAlive = Atomic<Bool>(true)

  @usableFromInline
  init() {}
}
