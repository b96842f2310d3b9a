import PostgresActionLog
import Synchronization
import TicTacToeServerCore
import Unidirectional

/// A partition this shard serves: its lease, its journal (the log `tictactoe-pN`, fenced by the
/// lease) and the game server of its games.
///
/// States: serving, then dropping (``dropReason`` set, once, by `Shard.drop`), after which its
/// sessions are closed and it is forgotten. A journal that fails (fenced, mostly) is noticed by
/// the shard's lease thread, which drops the partition; until then, its sessions that waited on
/// the journal were closed by the game server itself, and ``movedMessage`` tells them why.
final class ServedPartition: Sendable {
  /// The partition's number.
  let number: Int
  /// The lease it is served under; replaced by each renewal.
  let lease: Mutex<PartitionLeases.Lease>
  /// The partition's journal, in the log ``logName``.
  let journal: GameJournal
  /// The partition's games.
  let server: GameServer
  /// Set once, when the shard stops serving the partition: why.
  let dropReason = Mutex<String?>(nil)

  /// The log of partition `number` in the database's tables.
  static func logName(_ number: Int) -> String { "tictactoe-p\(number)" }

  var logName: String { Self.logName(number) }

  init(
    number: Int, lease: PartitionLeases.Lease, journal: GameJournal, server: GameServer
  ) {
    self.number = number
    self.lease = Mutex(lease)
    self.journal = journal
    self.server = server
  }

  /// What a client whose session this partition closes is told, once the partition is being
  /// dropped or its journal failed; `nil` while it serves.
  var movedMessage: String? {
    let why = dropReason.withLock { $0 } ?? journal.log.failure.map { "its journal stopped: \($0)" }
    guard let why else { return nil }
    return "this shard no longer serves partition \(number) (\(why)); nothing since your last "
      + "reply is acknowledged: rejoin with your seat token on any shard (you may be redirected)"
  }

  /// Whether sessions that end now end without a forfeit: the partition is dropped, or its
  /// journal failed (nothing a game does is kept any more).
  var isMoving: Bool {
    dropReason.withLock { $0 } != nil || journal.log.failure != nil
  }

  /// The id of game number `number` of partition `partition`: `g<number>-p<partition>-<k>`,
  /// with the least `k` that puts it in that partition (`PartitionLeases.partition(ofGame:…)`).
  /// Unique in the cluster: the number is unique in the partition's journal, which only the
  /// lease holder writes.
  static func gameID(_ number: Int, partition: Int, of count: Int) -> String {
    var k = 0
    while true {
      let id = "g\(number)-p\(partition)-\(k)"
      if PartitionLeases.partition(ofGame: id, partitionCount: count) == partition { return id }
      k += 1
    }
  }
}
