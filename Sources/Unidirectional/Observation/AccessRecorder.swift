import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Over 300 lines on purpose: the recorder's fields and the path that installs it on a thread
// are one unit. `installedOn` and `installedOnRecorder`, which reads trust to tell the thread
// that installed the recorder, are set only by that path (`threadRecorderOfThisThread()`, from
// `install()`), and their `private` access keeps it so within this file.

/// Collects the reads an observer makes of one store while it runs, as probes in the order the
/// reads were made.
///
/// A recorder is installed in a thread-local slot while an observer runs on a thread; reads of
/// its store on that thread append to it. Reads on other threads, and reads of other stores,
/// are not recorded.
///
/// ## Modes
///
/// - `owning`: the recording thread owns the store (see `StoreGate`), so reads go straight to
///   the state and each read finds, or makes, its probe in the store's graph as it is made. The
///   probe's value is then the value just read: nothing is evaluated twice.
/// - `deferred`: a first run that another thread owns the store during (it reads a copy of the
///   state, taken once, so that it sees one state), or that the owner makes in the middle of a
///   graph pass (it reads the state, which does not change then). Each read makes a standalone
///   probe; the owner files them later (see `Store.carryOut`).
@usableFromInline
final class AccessRecorder: @unchecked Sendable {
  // Safe: a recorder is used by one thread at a time: the thread that installed it. Runtime
  // exclusivity checks are disabled on its fields for the same reason: they would be a large
  // part of the cost of a read.

  /// The store whose reads are recorded.
  @usableFromInline @exclusivity(unchecked) var store: ObjectIdentifier

  /// Whether reads resolve their probes in the graph as they are made (`owning`), or make
  /// standalone probes (`deferred`).
  @usableFromInline let isOwning: Bool

  /// For a `deferred` recorder: the state its reads read (a copy owned by the caller), or `nil`
  /// for the store's own state.
  @usableFromInline let state: UnsafeMutableRawPointer?

  /// The probes of the current run's reads are `probes[0..<count]`, except while the run reads
  /// as predicted (see `readsAsPredicted`). The buffer is reused from run to run so that
  /// recording allocates nothing in the steady state.
  @usableFromInline @exclusivity(unchecked) var probes: ContiguousArray<Probe> = []
  @usableFromInline @exclusivity(unchecked) var count = 0

  /// The observer being run, whose last reads predict this run's: a re-run usually makes the
  /// same reads in the same order, so read `i` is usually its `reads[i]`, found without a look-up.
  /// Unretained: the owner holds the observer while it runs, and its reads stay as they are until
  /// the run ends, even if it is cancelled meanwhile (see `ObservationGraph.remove`), so reads
  /// use its probes without taking a reference each.
  @usableFromInline @exclusivity(unchecked) var running: Unmanaged<ObserverRecord>?

  /// Whether every read so far was the predicted one. While it is, `probes` is not written:
  /// the reads are the running observer's `reads[0..<count]`, and a run that ends so made
  /// exactly the reads of the last one. The first read that was not predicted copies them into
  /// `probes` (`diverge`).
  @usableFromInline @exclusivity(unchecked) var readsAsPredicted = false

  /// Whether a body is running: reads record only then. The drain recorder stays installed for
  /// a whole batch of runs, and a read made by other user code the store runs between two runs
  /// (the deinit of a value a dropped probe held) belongs to no observer.
  @usableFromInline @exclusivity(unchecked) var isRecording = false

  /// The thread on which a body is recording into this recorder now, or 0; also 0 while another
  /// recorder is installed over this one. A store finds its own drain recorder by this (see
  /// `Store.activeDrainRecorder`), without the thread-local slot: a `pthread_getspecific` and
  /// its checks cost about 40 instructions on every read of a re-running observer.
  ///
  /// Atomic because other threads read it (their reads of the store compare it with themselves).
  @usableFromInline let activeThread = Atomic<UInt>(0)

  /// Whether a body is recording into this recorder on this thread now (see `activeThread`).
  @inlinable @inline(__always)
  var isActiveOnThisThread: Bool {
    activeThread.load(ordering: .relaxed) == StoreGate.currentThread
  }

  /// The thread that installed this recorder last: while a body records, the recording thread.
  @usableFromInline @exclusivity(unchecked) private(set) var installedOn: UInt = 0
  /// `forkGeneration` when `installedOnRecorder` was kept: a child of a `fork` has the ids of
  /// the parent's threads, which never exit there (see `forkGeneration`).
  @exclusivity(unchecked) private var installedInGeneration: UInt = 0
  /// The `ThreadRecorder` of the thread that installed this recorder last (`installedOn`), kept
  /// alive here: a store's owner is usually one thread from action to action, and finding it
  /// through the thread-local slot costs about 40 instructions per batch of observer runs. Used
  /// only while that thread lives (`ThreadRecorder.isAlive`): a thread made later may have the
  /// same id.
  @exclusivity(unchecked) private var installedOnRecorder: Unmanaged<ThreadRecorder>?
  /// Keeps `installedOnRecorder` alive (read through `Unmanaged`: loading a reference retains).
  @exclusivity(unchecked) private var keptThreadRecorder: ThreadRecorder?

  @usableFromInline
  init(store: ObjectIdentifier, isOwning: Bool, state: UnsafeMutableRawPointer? = nil) {
    self.store = store
    self.isOwning = isOwning
    self.state = state
  }

  /// The predicted read: the probe the running observer's last run had at this position, if
  /// `isThisRead` says it is the read being made; then recorded as this run's read. Unretained,
  /// alive until the run ends (see `running`).
  ///
  /// Every read of a re-running observer asks this first: no copy of the reads, no reference
  /// taken, no look-up.
  @inlinable @inline(__always)
  func takePredicted(where isThisRead: (Probe) -> Bool) -> Unmanaged<Probe>? {
    guard let running else { return nil }
    let predicted = running._withUnsafeGuaranteedRef { observer -> Unmanaged<Probe>? in
      if count == 0 { return observer.reads.head.map { Unmanaged.passUnretained($0) } }
      let tailIndex = count &- 1
      guard tailIndex < observer.reads.tail.count else { return nil }
      return Unmanaged.passUnretained(observer.reads.tail[tailIndex])
    }
    guard let predicted, predicted._withUnsafeGuaranteedRef(isThisRead) else { return nil }
    if readsAsPredicted {
      count &+= 1
    } else {
      predicted._withUnsafeGuaranteedRef { append($0) }
    }
    return predicted
  }

  /// Appends the probe of a read.
  @inlinable @inline(__always)
  func append(_ probe: Probe) {
    if readsAsPredicted { diverge() }
    store(probe)
  }

  /// Writes `probe` at position `count` of `probes`.
  @inlinable @inline(__always)
  func store(_ probe: Probe) {
    if count < probes.count {
      // Skipping identical stores saves a retain and a release per read in the steady state.
      if probes[count] !== probe { probes[count] = probe }
    } else {
      probes.append(probe)
    }
    count &+= 1
  }

  /// Ends the run's predicted reads: copies them into `probes`, which holds the reads from now
  /// on.
  @usableFromInline
  func diverge() {
    readsAsPredicted = false
    let predictedCount = count
    count = 0
    guard let running else { return }
    running._withUnsafeGuaranteedRef { observer in
      for index in 0..<predictedCount { store(observer.reads[index]) }
    }
  }

  /// Whether the current run made exactly the reads of `observer`'s last run, in order.
  @inline(__always)
  func readsMatch(_ observer: ObserverRecord) -> Bool {
    // A run that read only as predicted ended with as many reads (see `record`).
    readsAsPredicted || readsMatchOneByOne(observer)
  }

  /// `readsMatch` of a run that diverged from its prediction: compares the reads one by one.
  private func readsMatchOneByOne(_ observer: ObserverRecord) -> Bool {
    guard observer.reads.count == count else { return false }
    for index in 0..<count where observer.reads[index] !== probes[index] { return false }
    return true
  }

  /// The recorder of the current thread, if an observer's body is running on it, unretained: it
  /// is alive for as long as it is installed.
  @inlinable
  static var current: Unmanaged<AccessRecorder>? {
    guard let slot = slot.value,
      let recorder = Unmanaged<ThreadRecorder>.fromOpaque(slot)._withUnsafeGuaranteedRef({
        $0.current
      }),
      recorder._withUnsafeGuaranteedRef({ $0.isRecording })
    else { return nil }
    return recorder
  }

  /// Installs `self` as the current thread's recorder and returns what `restore` needs to put
  /// back the one it replaces (runs nest, for example when an observer registers another
  /// observer).
  ///
  /// A recorder it replaces that was recording stops being its store's active one (see
  /// `activeThread`) until `restore`: reads on this thread go to `self` meanwhile.
  ///
  /// Inlined into its two callers: the call cost about 20 instructions per batch of runs.
  @usableFromInline @inline(__always)
  func install() -> Installation {
    let slot = threadRecorderOfThisThread()
    return slot._withUnsafeGuaranteedRef { slot in
      defer { slot.current = Unmanaged.passUnretained(self) }
      let previous = slot.current
      let previousThread =
        previous?._withUnsafeGuaranteedRef {
          $0.activeThread.exchange(0, ordering: .relaxed)
        } ?? 0
      return Installation(
        slot: Unmanaged.passUnretained(slot), previous: previous, previousThread: previousThread)
    }
  }

  /// This thread's `ThreadRecorder`: the one kept from the last install if that was on this
  /// thread, and the thread still lives; otherwise the slot's, kept for the next install.
  @inline(__always)
  private func threadRecorderOfThisThread() -> Unmanaged<ThreadRecorder> {
    let thread = StoreGate.currentThread
    let generation = Self.forkGeneration.load(ordering: .relaxed)
    if thread == installedOn, generation == installedInGeneration, let kept = installedOnRecorder,
      kept._withUnsafeGuaranteedRef({ $0.isAlive.load(ordering: .relaxed) })
    {
      return kept
    }
    let slot = Self.threadRecorder
    installedOn = thread
    installedInGeneration = generation
    installedOnRecorder = slot
    keptThreadRecorder = slot.takeUnretainedValue()
    return slot
  }

  /// What `restore` needs to put back the recorder `install()` replaced.
  @usableFromInline
  struct Installation {
    let slot: Unmanaged<ThreadRecorder>
    let previous: Unmanaged<AccessRecorder>?
    /// The replaced recorder's `activeThread`.
    let previousThread: UInt
  }

  /// Restores the recorder `install()` replaced.
  @usableFromInline
  static func restore(_ installed: Installation) {
    installed.slot._withUnsafeGuaranteedRef { $0.current = installed.previous }
    if installed.previousThread != 0, let previous = installed.previous {
      previous._withUnsafeGuaranteedRef {
        $0.activeThread.store(installed.previousThread, ordering: .relaxed)
      }
    }
  }

  /// The current thread's `ThreadRecorder`, made by its first install.
  @usableFromInline
  static var threadRecorder: Unmanaged<ThreadRecorder> {
    if let slot = slot.value { return Unmanaged.fromOpaque(slot) }
    // Before any recorder keeps a thread recorder: they are all made here.
    Self.watchForks
    // Released when the thread exits (the slot's destructor).
    let made = Unmanaged.passRetained(ThreadRecorder())
    slot.set(made.toOpaque())
    return made
  }

  /// Runs `body`, recording its reads. The recorder must be installed.
  ///
  /// - Parameter observer: The observer `body` belongs to, whose last reads predict this run's.
  @inlinable @inline(__always)
  func record(_ body: @Sendable () -> Void, running observer: ObserverRecord? = nil) {
    count = 0
    readsAsPredicted = observer != nil
    running = observer.map { Unmanaged.passUnretained($0) }
    isRecording = true
    // The installing thread, this one: `pthread_self` again cost a call per run.
    activeThread.store(installedOn, ordering: .relaxed)
    body()
    activeThread.store(0, ordering: .relaxed)
    isRecording = false
    // Fewer reads than predicted: not the same reads, so they must be in `probes`.
    if let observer, readsAsPredicted, count != observer.reads.count { diverge() }
    running = nil
  }

  /// Installs the recorder, runs `body` recording its reads, and restores the previous one.
  @usableFromInline
  func recordInstalled(_ body: @Sendable () -> Void) {
    let previous = install()
    record(body)
    Self.restore(previous)
  }

  /// The probes recorded by the latest run, in order, unless it read only as predicted (then
  /// they are the observer's reads of its last run).
  var recordedProbes: ArraySlice<Probe> {
    precondition(!readsAsPredicted, "Unidirectional: the run's reads are the observer's")
    return probes[0..<count]
  }

  /// Counts the `fork`s this process is the child of. A child runs only the thread that forked;
  /// the parent's other threads never exit in it, so their `ThreadRecorder`s stay alive, and
  /// the child's new threads get their stacks, and so their ids: a thread recorder kept before
  /// a fork (`installedOnRecorder`) must not serve after it.
  static let forkGeneration = Atomic<UInt>(0)

  /// Registers the handler that counts forks (`forkGeneration`), once.
  private static let watchForks: Void = {
    pthread_atfork(nil, nil) { AccessRecorder.forkGeneration.add(1, ordering: .relaxed) }
  }()

  /// The thread-local slot that holds the current thread's `ThreadRecorder`.
  @usableFromInline
  static let slot = ThreadLocalKey { value in
    guard let value else { return }
    let recorder = Unmanaged<ThreadRecorder>.fromOpaque(value)
    // Recorders that keep it (`installedOnRecorder`) must not use it for a thread made later
    // with this thread's id.
    recorder._withUnsafeGuaranteedRef { $0.isAlive.store(false, ordering: .relaxed) }
    recorder.release()
  }
}
