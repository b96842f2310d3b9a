import Foundation
import Synchronization
import Unidirectional

/// The server's durable journal: the ``Journal`` store and its durable action log, recovered
/// from a data directory if it holds one, or from a log kept elsewhere (a database: see
/// ``init(recovered:snapshotEvery:writeSnapshot:)``).
///
/// The directory holds `journal.jsonl` (the log: a header line, then one checksummed entry per
/// journaled action, never rewritten except to cut a torn tail, whose bytes move to
/// `journal.jsonl.quarantine-N` first) and `journal.snapshot.json` (the journal's state every
/// `snapshotInterval` entries, replaced atomically), all mode 0600.
public final class GameJournal: Sendable {
  /// The program name in the log's header.
  public static let program = "tictactoe-server"
  /// The version of the journal's action encoding in the log's header: 2 since entries carry
  /// the wall time of a game's activity (`room`'s `at`, and `active`). Version 1 journals are
  /// read (their entries have no dates); a program that reads only version 1 refuses a version 2
  /// journal by name (`newerSchema`) rather than failing on its first dated entry.
  public static let schemaVersion = 2

  /// The journal store: send it what must survive a crash.
  public let store: Store<Journal.State, Journal.Action>
  /// The log its actions go to.
  public let log: DurableActionLog<Journal.Action>
  /// What recovery did, if the directory held a journal.
  public let recovery: String?
  /// Counts the log's flushes (`fsync`s), for a journal started in this run; `nil` for a
  /// recovered one, whose file sink recovery opens itself.
  let counter: CountingSink?

  /// The journal's board (``Journal/State/leaderboard``) and the sequence of the log entry
  /// that last changed it, set as that entry is appended (see ``journaledBoard``).
  let board: Locked<JournaledBoard>

  /// A board with the position in the log that holds it.
  struct JournaledBoard {
    /// The board.
    var leaderboard: Leaderboard
    /// Every win on it is counted by an entry up to this sequence: once the log is durable
    /// that far, a crash keeps them all.
    var through: Int
  }

  /// The journal's board and the position it is on disk at, read together: the board a
  /// durable server shows (see ``GameServer``'s "The leaderboard"). The store's own state
  /// cannot give them together: a reduced action's entry is appended just after its state is
  /// there to read.
  var journaledBoard: JournaledBoard { board.withLock { $0 } }

  /// How many times the log was flushed to disk in this run, if known: with
  /// ``DurableActionLog/durableCount``, the entries each `fsync` covered on average.
  public var flushCount: Int? { counter?.flushes.load(ordering: .relaxed) }

  /// Opens the journal in `directory` (created, mode 0700, if missing), recovering it if it
  /// exists.
  ///
  /// - Parameters:
  ///   - directory: The data directory.
  ///   - committer: The thread that writes and flushes the log.
  ///   - snapshotInterval: How many entries between snapshots.
  ///   - repairingDamage: Whether to repair a damaged log (an entry that does not verify,
  ///     followed by entries that do) by moving the damaged entry and everything after it to
  ///     `journal.jsonl.quarantine-N` before recovering; `false` by default, when such a log
  ///     throws instead. The server's `--repair-journal`.
  /// - Throws: ``ActionLogError`` if the directory or the log cannot be used, or the log is
  ///   damaged (``ActionLogError/Reason/damaged(byteOffset:problem:)``) and not repaired.
  public init(
    directory: String, committer: ActionLogCommitter, snapshotInterval: Int = 1000,
    repairingDamage: Bool = false
  ) throws(ActionLogError) {
    let path = directory + "/journal.jsonl"
    let snapshotPath = directory + "/journal.snapshot.json"
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw ActionLogError(
        path: directory, line: nil, reason: .fileError("cannot create the directory: \(error)"))
    }
    let state: Journal.State
    if FileManager.default.fileExists(atPath: path) {
      let recovered = try DurableActionLog<Journal.Action>.recover(
        path: path, snapshotPath: snapshotPath, program: Self.program,
        schemaVersion: Self.schemaVersion, redactsSecrets: false,
        repairingDamage: repairingDamage, initialState: Journal.State(), reducer: Journal(),
        committer: committer)
      state = recovered.state
      log = recovered.log
      recovery = recovered.description
      counter = nil
    } else {
      let counter = CountingSink(try ActionLogFileSink(path: path))
      self.counter = counter
      log = DurableActionLog<Journal.Action>(
        sink: counter, program: Self.program, schemaVersion: Self.schemaVersion,
        redactsSecrets: false, committer: committer)
      state = Journal.State()
      recovery = nil
    }
    let board = Self.board(state, log)
    self.board = board
    store = Store(
      initialState: state, reducer: Journal(),
      interceptors: [
        log.interceptor(snapshottingTo: snapshotPath, every: snapshotInterval),
        Self.keeping(board, log),
      ])
  }

  /// Opens the journal on a log recovered from a sink of your own, such as a database's
  /// (`DurableActionLog.recover(header:snapshot:entries:continuingIn:…)`, with
  /// ``program`` and ``schemaVersion``).
  ///
  /// - Parameters:
  ///   - recovered: The recovered state and log.
  ///   - snapshotEvery: How many entries between snapshots.
  ///   - writeSnapshot: Where a snapshot goes (given its sequence and bytes).
  public init(
    recovered: ActionLogRecovery<Journal.State, Journal.Action>, snapshotEvery: Int = 1000,
    writeSnapshot:
      @escaping @Sendable (_ sequence: Int, _ snapshot: Data) throws(ActionLogError)
      -> Void
  ) {
    log = recovered.log
    recovery = recovered.sequence == 0 ? nil : recovered.description
    counter = nil
    let board = Self.board(recovered.state, log)
    self.board = board
    store = Store(
      initialState: recovered.state, reducer: Journal(),
      interceptors: [
        log.interceptor(snapshottingEvery: snapshotEvery, with: writeSnapshot),
        Self.keeping(board, log),
      ])
  }

  /// The board of a recovered (or new) state: on disk up to the log's last entry.
  private static func board(
    _ state: Journal.State, _ log: DurableActionLog<Journal.Action>
  ) -> Locked<JournaledBoard> {
    Locked(JournaledBoard(leaderboard: state.leaderboard, through: log.recordedCount))
  }

  /// An interceptor after the log's: once a game's end (the only action that changes the
  /// board) is appended, keeps the board it made and the entry's sequence.
  private static func keeping(
    _ board: Locked<JournaledBoard>, _ log: DurableActionLog<Journal.Action>
  ) -> StoreInterceptor<Journal.State, Journal.Action> {
    StoreInterceptor(didReduce: { action, _, new in
      guard case .ended = action else { return }
      // The log's interceptor ran first: the entry is appended, and only this store appends.
      let through = log.recordedCount
      board.withLock { $0 = JournaledBoard(leaderboard: new.leaderboard, through: through) }
    })
  }
}
