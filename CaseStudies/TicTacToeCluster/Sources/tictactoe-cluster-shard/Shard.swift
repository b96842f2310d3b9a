import Foundation
import PostgresActionLog
import Synchronization
import TicTacToeServerCore
import Unidirectional

/// A shard of the TicTacToe cluster: it serves the games of the partitions it holds a lease on,
/// each partition with its own fenced journal and game server, and redirects the rest.
///
/// Threads: the ``LineServer``'s loop routes frames (`Shard+Routing`); the lease thread claims,
/// renews, shares and drops partitions (`Shard+Leases`); owner look-ups for redirects run on
/// the global queue. What they share is behind the mutexes below.
final class Shard: Sendable {
  /// A player of this shard waiting in the lobby table.
  struct WaitingPlayer: Sendable {
    let partition: Int
    let epoch: Int64
    let entrant: Lobby.Entrant
    /// When it started waiting, on this shard's clock.
    let since: ContinuousClock.Instant
    /// Its row was found gone (``PartitionLeases/JoinOutcome/rowGone(ticket:)``): it joins
    /// again once the matches made for it were read.
    var hasLostRow = false
  }

  /// A `join` a game server handed to the shard, not yet paired nor in the lobby table.
  struct PendingJoin: Sendable {
    let partition: Int
    let epoch: Int64
    let entrant: Lobby.Entrant
  }

  /// A connection's session in a partition's game server.
  struct Route: Sendable {
    let partition: ServedPartition
    let session: Int
    /// The client's connection.
    let connection: LineConnection
    /// Set when the session is handed to a game elsewhere (`Shard+Lobby`): its frames stop.
    let muted: Flag
  }

  let options: ShardOptions
  let process: ServerProcess
  let database: PostgresActionLogDatabase
  /// The lease thread's: claims, renewals, releases, announcements.
  let leases: PartitionLeases
  /// Owner look-ups for redirects, on a connection of their own, so that they never wait for
  /// the lease thread's statements.
  let lookups: PartitionLeases
  /// The lobby table's joins (`Shard+Lobby`), one at a time on ``lobbyQueue``, on a connection
  /// of their own: a join holds its transaction while the game's start is journaled.
  let lobby: PartitionLeases
  let lobbyQueue = DispatchQueue(label: "lobby")
  /// This shard's players waiting in the lobby table, by ticket: the lease thread looks for
  /// their matches while there are some, and joins them again now and then (`Shard+Lobby`).
  let waiting = Mutex<[Int64: WaitingPlayer]>([:])
  /// Whether a retry of the waiting players' joins is on the lobby queue.
  let rejoining = Atomic(false)
  /// Joins not yet handled, and whether a drain of them is on the lobby queue (`Shard+Lobby`).
  let pendingJoins = Mutex<(joins: [PendingJoin], isScheduled: Bool)>(([], false))
  /// One committer for every partition's journal: one transaction per round covers them all.
  let committer = ActionLogCommitter(concurrentFlushes: 1)
  /// Where redirects send clients (`HOST:PORT`); set once the socket is bound.
  let address = Mutex("")
  /// The partitions served now, by number.
  let served = Mutex<[Int: ServedPartition]>([:])
  /// The connections attached to a partition's game server.
  let routes = Mutex<[ObjectIdentifier: Route]>([:])
  /// Partitions whose journal failed for a reason a new lease does not cure (damage, another
  /// writer): left alone until the shard restarts.
  let broken = Mutex<Set<Int>>([])
  /// Set by ``stop()``: the lease thread ends its loop.
  let stopping = Atomic(false)
  /// Signalled to wake the lease thread early (at stop), and by it when it ends.
  let wake = DispatchSemaphore(value: 0)
  let ended = DispatchSemaphore(value: 0)

  /// Connects to the database (exits 69 if it cannot be reached).
  init(options: ShardOptions, process: ServerProcess) {
    self.options = options
    self.process = process
    do {
      // A round's transaction holds its partitions' lease rows `FOR SHARE`: a shard paused
      // inside one must not keep another from claiming them, so the server ends the session
      // after half a lease (the round fails as unavailable; the fence refuses its retry).
      database = try PostgresActionLogDatabase(
        connectionString: options.database, idleInTransactionTimeout: options.leaseTime / 2,
        log: { process.log($0) })
      leases = try PartitionLeases(
        connectionString: options.database, holder: options.name, leaseTime: options.leaseTime)
      lookups = try PartitionLeases(
        connectionString: options.database, holder: options.name, leaseTime: options.leaseTime)
      lobby = try PartitionLeases(
        connectionString: options.database, holder: options.name, leaseTime: options.leaseTime)
      try lobby.openLobby()
    } catch {
      process.fail(
        "the database cannot be reached (\(error)); check --database and that PostgreSQL runs",
        code: 69)
    }
  }

  /// The partition of game `id` in this cluster.
  func partition(ofGame id: String) -> Int {
    PartitionLeases.partition(ofGame: id, partitionCount: options.partitions)
  }

  /// Recovers partition `lease.partition`'s games from its journal, fenced by `lease`, and
  /// serves them; on failure, gives the lease back and says why.
  func serve(_ lease: PartitionLeases.Lease) {
    let number = lease.partition
    let name = ServedPartition.logName(number)
    do throws(ActionLogError) {
      let recovered = try database.recover(
        log: name, program: GameJournal.program, schemaVersion: GameJournal.schemaVersion,
        redactsSecrets: false, initialState: Journal.State(), reducer: Journal(),
        committer: committer, fencedBy: lease)
      let journal = GameJournal(
        recovered: recovered, snapshotEvery: options.snapshotEvery,
        writeSnapshot: database.snapshotWriter(forLog: name))
      let count = options.partitions
      let process = self.process
      let log: (@Sendable (String) -> Void)? =
        options.quiet ? nil : { @Sendable message in process.log(message) }
      let server = GameServer(
        configuration: GameServer.Configuration(
          idleTimeout: .milliseconds(Int64(options.idleTimeout * 1000)), log: log,
          abandonAfter: .milliseconds(Int64(options.abandonAfter * 1000)),
          gameID: { ServedPartition.gameID($0, partition: number, of: count) },
          matchmaker: matchmaker(for: lease)),
        journal: journal)
      let partition = ServedPartition(
        number: number, lease: lease, journal: journal, server: server)
      served.withLock { $0[number] = partition }
      process.log(
        "partition \(number): serving under epoch \(lease.epoch); journal '\(name)' "
          + (journal.recovery ?? "new") + ", \(server.statistics.games) games in progress")
    } catch {
      _ = try? leases.release(lease)
      if case .unavailable(let why) = error.reason {
        process.log(
          "warning: partition \(number): its journal cannot be read now (\(why)); lease given "
            + "back, claimed again at a later round once the database answers")
      } else {
        broken.withLock { _ = $0.insert(number) }
        process.log(
          "error: partition \(number): its journal '\(name)' cannot be used (\(error)); lease "
            + "given back, and this shard leaves the partition alone until restarted. Look at "
            + "SELECT sequence, line FROM unidirectional_log_lines WHERE log = '\(name)' "
            + "ORDER BY sequence")
      }
    }
  }

  /// Stops serving `partition` at once: its sessions are told why (`moved`) and closed without
  /// a forfeit, its journal is closed, and, if `release`, its lease is given back once what its
  /// journal holds is committed. Logs what happened and what to do.
  func drop(
    _ partition: ServedPartition, because why: String, advice: String, release: Bool
  ) {
    let removed = served.withLock { served -> Bool in
      guard served[partition.number] === partition else { return false }
      served[partition.number] = nil
      return true
    }
    guard removed else { return }
    partition.dropReason.withLock { $0 = why }
    let games = partition.server.statistics.games
    partition.server.shutdown()
    var committed = true
    if release {
      // Given back only once what it journaled is committed, so that the next holder recovers
      // every acknowledged move; a journal that cannot finish within the bound keeps its lease
      // until it expires instead.
      committed = Self.waitUntilDurable(partition.journal, within: .seconds(5))
    }
    database.close(log: partition.logName, because: why)
    let lease = partition.lease.withLock { $0 }
    if release, committed { _ = try? leases.release(lease) }
    process.log(
      "partition \(partition.number) dropped (epoch \(lease.epoch)): \(why). \(games) games in "
        + "progress closed without forfeits; their players were told to rejoin. \(advice)")
  }

  /// Waits until everything `journal` holds is committed, or `bound` passes; whether it was.
  static func waitUntilDurable(_ journal: GameJournal, within bound: Duration) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let committed = Flag(false)
    // Detached: the caller's thread waits below, and must not be the one the task needs.
    Task.detached {
      do throws(ActionLogError) {
        try await journal.log.waitUntilDurable()
        committed.set(true)
      } catch {}
      done.signal()
    }
    let milliseconds = Int(bound.components.seconds * 1000)
    guard done.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else {
      return false
    }
    return committed.isSet
  }
}
