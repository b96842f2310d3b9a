// Over 300 lines on purpose: one lock-free protocol over a single state word. Its bits, fast
// paths and waiting slow paths must be read together to be checked.

import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Decides which thread works on a root store, and lets other threads read its state safely,
/// without ever holding a lock while the store runs code of the user's (reducers, dependencies,
/// observers, `==`, key-path getters, deinits).
///
/// ## States
///
/// One atomic word (`word`) holds the state; its bits are described at `StoreGateBits`:
///
/// - **idle**: nobody owns the store. Any thread may read the state (as a *reader*), and the
///   first thread to send, register an observer or cancel one while idle becomes the owner.
/// - **draining**: one thread, the *owner*, has the store's work. Only the owner reduces
///   actions, changes the observation graph and runs observers; other threads hand it work
///   through the mutex-guarded queue and requests (the store's `pending`) (`HAS_WORK` tells the owner there is
///   some). Readers may read meanwhile.
/// - **reducing** (a sub-state of draining): the owner is changing the state in place. New
///   readers wait until it commits; the owner starts reducing only once no reader is reading.
///
/// Transitions: idle → draining (`tryAcquire…`, or `submit` finding the store idle); draining →
/// reducing (`beginReducing`); reducing → draining (`endReducing`, which also counts one more
/// committed action in `generation`); draining → idle (`tryRelease`, or `nextWork` finding
/// nothing left, both refusing while `HAS_WORK` is set).
///
/// The mutex guards the work handed to the owner (the store's `pending`), and is held only for a
/// few instructions of bookkeeping, never while user code runs. It also backs the
/// condition variable that waiting readers and a waiting owner sleep on.
/// The bits of `StoreGate`'s word. Computed constants, not `static let`s, so that they fold into
/// the code instead of costing a lazy-initialization check per use.
@usableFromInline
enum StoreGateBits {
  /// A thread owns the store's work.
  @inline(__always) static var draining: UInt64 { 1 << 0 }
  /// The owner is changing the state: readers must wait.
  @inline(__always) static var reducing: UInt64 { 1 << 1 }
  /// The store's `pending` holds work for the owner: it must not go idle before taking it.
  @inline(__always) static var hasWork: UInt64 { 1 << 2 }
  /// A thread sleeps on the condition variable: whoever changes `reducing` or the reader count
  /// must wake it.
  @inline(__always) static var waiters: UInt64 { 1 << 3 }
  /// One reader, counted in bits 4 to 31.
  @inline(__always) static var reader: UInt64 { 1 << 4 }
  @inline(__always) static var readers: UInt64 { 0xFFFF_FFF0 }
  /// One committed action, counted (wrapping) in bits 32 to 63.
  @inline(__always) static var generation: UInt64 { 1 << 32 }
  @inline(__always) static var flags: UInt64 { draining | reducing | hasWork }
}

@usableFromInline
final class StoreGate: @unchecked Sendable {
  // Safe: `word` and `ownerThread` are atomic; `ownerThread` is written only by the owner (and
  // read by others only to ask "am I the owner?", whose answer a thread's own writes decide).

  private typealias Bits = StoreGateBits

  @usableFromInline let word = Atomic<UInt64>(0)

  /// The owner's thread while the store is draining, `0` otherwise.
  @usableFromInline let ownerThread = Atomic<UInt>(0)

  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  @usableFromInline
  init() {
    mutex = .allocate(capacity: 1)
    condition = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  // MARK: The mutex

  /// Runs `body` with the mutex held (for the work handed to the owner, which it guards).
  /// `body` must not run user code.
  @inline(__always)
  func withLock<Result>(_ body: () -> Result) -> Result {
    lock()
    defer { unlock() }
    return body()
  }

  @inline(__always)
  func lock() {
    pthread_mutex_lock(mutex)
    #if DEBUG
      StoreLockDiagnostics.adjust(by: 1)
    #endif
  }

  @inline(__always)
  func unlock() {
    #if DEBUG
      StoreLockDiagnostics.adjust(by: -1)
    #endif
    pthread_mutex_unlock(mutex)
  }

  // MARK: Owning

  /// Whether the calling thread owns the store's work now.
  var isOwnedByCurrentThread: Bool {
    ownerThread.load(ordering: .relaxed) == Self.currentThread
  }

  /// Whether the owner is reducing now (for the owner: whether it is inside its reducer).
  var isReducing: Bool {
    word.load(ordering: .relaxed) & Bits.reducing != 0
  }

  /// The generation (count of committed actions, wrapping) as of the latest commit.
  @usableFromInline
  var generation: UInt32 {
    UInt32(truncatingIfNeeded: word.load(ordering: .acquiring) >> 32)
  }

  /// Takes the store for one action if it is idle with no reader: the caller then owns it and
  /// is reducing. The fast path of `send`.
  @inline(__always)
  @usableFromInline
  func tryAcquireForReducing() -> Bool {
    let old = word.load(ordering: .relaxed)
    guard old & (Bits.flags | Bits.readers) == 0 else { return false }
    guard
      word.compareExchange(
        expected: old, desired: old | Bits.draining | Bits.reducing, ordering: .acquiring
      ).exchanged
    else { return false }
    ownerThread.store(Self.currentThread, ordering: .relaxed)
    return true
  }

  /// Takes the store if nobody owns it (readers may be reading). The caller then owns it.
  func tryAcquire() -> Bool {
    var old = word.load(ordering: .relaxed)
    while old & Bits.draining == 0 {
      let (exchanged, current) = word.compareExchange(
        expected: old, desired: old | Bits.draining, ordering: .acquiring)
      if exchanged {
        ownerThread.store(Self.currentThread, ordering: .relaxed)
        return true
      }
      old = current
    }
    return false
  }

  /// How busy the store looks to a thread that could not take it: for a sender to decide
  /// whether to retry at once, wait a moment, or queue its action.
  enum Busyness {
    /// Nobody owns it (readers may be reading).
    case idle
    /// The owner is reducing: it usually gives the store up within tens of nanoseconds.
    case reducing
    /// The owner runs observers or effects, or has queued work: it may stay busy long.
    case draining
  }

  var busyness: Busyness {
    let word = word.load(ordering: .relaxed)
    if word & Bits.draining == 0 { return .idle }
    if word & Bits.reducing != 0 && word & Bits.hasWork == 0 { return .reducing }
    return .draining
  }

  /// Owner: starts changing the state, once no reader is reading it.
  func beginReducing() {
    var old = word.load(ordering: .relaxed)
    var attempts = 0
    while true {
      if old & Bits.readers == 0 {
        let (exchanged, current) = word.compareExchange(
          expected: old, desired: old | Bits.reducing, ordering: .acquiring)
        if exchanged { return }
        old = current
        continue
      }
      // Readers copy a value and leave: yielding is far cheaper than sleeping.
      attempts += 1
      if attempts < 100 {
        sched_yield()
      } else {
        wait { $0 & Bits.readers == 0 }
      }
      old = word.load(ordering: .relaxed)
    }
  }

  /// Owner: commits the state changed since `beginReducing` (or `tryAcquireForReducing`), and
  /// lets readers in again.
  @usableFromInline
  func endReducing() {
    let old = word.wrappingAdd(Bits.generation &- Bits.reducing, ordering: .acquiringAndReleasing)
      .oldValue
    if old & Bits.waiters != 0 { wakeWaiters() }
  }

  /// Owner: commits like `endReducing` and gives the store up in the same step, if no work is
  /// pending. Returns `false` (still owning and reducing) otherwise.
  @inline(__always)
  @usableFromInline
  func tryEndReducingAndRelease() -> Bool {
    tryGiveUp(clearing: Bits.draining | Bits.reducing, committing: true)
  }

  /// Owner: gives the store up if no work is pending. Returns whether it did.
  @inline(__always)
  @usableFromInline
  func tryRelease() -> Bool {
    tryGiveUp(clearing: Bits.draining, committing: false)
  }

  /// Clears `bits` (counting one more committed action if `committing`) unless work is pending:
  /// one attempt, which fails too if the word changed meanwhile (a new reader, a waiter).
  @inline(__always)
  private func tryGiveUp(clearing bits: UInt64, committing: Bool) -> Bool {
    let old = word.load(ordering: .relaxed)
    guard old & Bits.hasWork == 0 else { return false }
    ownerThread.store(0, ordering: .relaxed)
    let new = (committing ? old &+ Bits.generation : old) & ~bits
    if word.compareExchange(expected: old, desired: new, ordering: .acquiringAndReleasing)
      .exchanged
    {
      if old & Bits.waiters != 0 { wakeWaiters() }
      return true
    }
    ownerThread.store(Self.currentThread, ordering: .relaxed)
    return false
  }

  /// Owner: takes the next pending work with `take`, or gives the store up if there is none.
  ///
  /// - Parameter take: Removes and returns the next piece of work, and whether more remains;
  ///   runs with the mutex held, so it must not run user code.
  /// - Returns: The work, or `nil` once the store is idle (and no longer owned).
  func nextWork<Item>(_ take: () -> (item: Item?, more: Bool)) -> Item? {
    lock()
    let (item, more) = take()
    if item == nil {
      ownerThread.store(0, ordering: .relaxed)
      let old = word.bitwiseAnd(~(Bits.draining | Bits.hasWork), ordering: .acquiringAndReleasing)
        .oldValue
      unlock()
      if old & Bits.waiters != 0 { wakeWaiters() }
      return nil
    }
    if !more { word.bitwiseAnd(~Bits.hasWork, ordering: .relaxed) }
    unlock()
    return item
  }

  /// Hands work to the owner, or makes the caller the owner if the store is idle.
  ///
  /// - Parameter add: Adds the work; runs with the mutex held, so it must not run user code.
  /// - Returns: `true` if the caller now owns the store and must drain it (its work is pending
  ///   like any other); `false` if the owner will do the work.
  func submit(_ add: () -> Void) -> Bool {
    lock()
    add()
    var old = word.load(ordering: .relaxed)
    while true {
      let isIdle = old & Bits.draining == 0
      let desired = isIdle ? old | Bits.draining | Bits.hasWork : old | Bits.hasWork
      let (exchanged, current) = word.compareExchange(
        expected: old, desired: desired, ordering: .acquiringAndReleasing)
      if exchanged {
        if isIdle { ownerThread.store(Self.currentThread, ordering: .relaxed) }
        unlock()
        return isIdle
      }
      old = current
    }
  }

  /// Sleeps while the owner is reducing (for a sender that could not take the store).
  func waitWhileReducing() {
    wait { $0 & Bits.reducing == 0 }
  }

  // MARK: Reading

  /// Starts a read of the state by a thread that does not own the store (or owns it but is not
  /// reducing): waits while the owner is reducing.
  ///
  /// - Precondition: The calling thread is not reducing this store (a reducer, or code it calls,
  ///   must not read the store it is reducing: its state is `inout state`).
  @inline(__always)
  @usableFromInline
  func beginReading() {
    if !tryCountReader() { beginReadingSlowPath() }
  }

  /// Counts one more reader, unless the owner is reducing.
  @inline(__always)
  private func tryCountReader() -> Bool {
    var old = word.load(ordering: .relaxed)
    while old & Bits.reducing == 0 {
      let (exchanged, current) = word.compareExchange(
        expected: old, desired: old &+ Bits.reader, ordering: .acquiring)
      if exchanged { return true }
      old = current
    }
    return false
  }

  private func beginReadingSlowPath() {
    precondition(
      !isOwnedByCurrentThread,
      """
      Unidirectional: a store was read while it was reducing an action, by the reducer or by \
      code it called (a dependency, a deinit). A reducer sees its state through `inout state`; \
      read the store from an effect or an observer instead.
      """)
    repeat {
      wait { $0 & Bits.reducing == 0 }
    } while !tryCountReader()
  }

  /// Ends a read started by `beginReading`.
  @inline(__always)
  @usableFromInline
  func endReading() {
    let old = word.wrappingSubtract(Bits.reader, ordering: .releasing).oldValue
    if old & Bits.waiters != 0, old & Bits.readers == Bits.reader { wakeWaiters() }
  }

  // MARK: Waiting

  /// Sleeps until `isSatisfied` holds for the word.
  ///
  /// Sets `waiters` before each check, with the mutex held: whoever then changes the word sees
  /// the bit in the value its atomic operation returns, and wakes everyone after taking the mutex
  /// (which this thread releases only inside `pthread_cond_wait`), so no wake-up is lost.
  private func wait(until isSatisfied: (UInt64) -> Bool) {
    lock()
    while true {
      let old = word.bitwiseOr(Bits.waiters, ordering: .sequentiallyConsistent).oldValue
      if isSatisfied(old) { break }
      #if DEBUG
        StoreLockDiagnostics.adjust(by: -1)
      #endif
      pthread_cond_wait(condition, mutex)
      #if DEBUG
        StoreLockDiagnostics.adjust(by: 1)
      #endif
    }
    unlock()
  }

  private func wakeWaiters() {
    lock()
    word.bitwiseAnd(~Bits.waiters, ordering: .sequentiallyConsistent)
    pthread_cond_broadcast(condition)
    unlock()
  }

  /// The calling thread, as a number.
  @inlinable
  static var currentThread: UInt {
    #if canImport(Darwin)
      UInt(bitPattern: pthread_self())
    #else
      UInt(pthread_self())
    #endif
  }
}

/// Tells tests whether the current thread holds a store's lock, so that code a store calls
/// (observers, deinits of what they captured) can check that it never runs under one.
///
/// Counted in debug builds only; in release builds ``isHeldByCurrentThread`` is always `false`.
@usableFromInline
package enum StoreLockDiagnostics {
  /// Whether the current thread holds at least one store's lock (debug builds only).
  package static var isHeldByCurrentThread: Bool {
    #if DEBUG
      return Int(bitPattern: pthread_getspecific(depthKey)) > 0
    #else
      return false
    #endif
  }

  #if DEBUG
    @usableFromInline
    package static func adjust(by delta: Int) {
      let depth = Int(bitPattern: pthread_getspecific(depthKey)) + delta
      pthread_setspecific(depthKey, UnsafeRawPointer(bitPattern: depth))
    }

    /// The number of store locks the thread holds, stored as the slot's pointer value.
    @usableFromInline
    static let depthKey: pthread_key_t = {
      var key = pthread_key_t()
      let status = pthread_key_create(&key, nil)
      precondition(status == 0, "Unidirectional: pthread_key_create failed (\(status))")
      return key
    }()
  #endif
}
