import Foundation
import PostgresActionLog
import TicTacToeServerCore
import Unidirectional

// Matchmaking through the cluster's lobby table (`PartitionLeases+Lobby`): each partition's
// game server hands its `join`s here instead of pairing them itself. On the lobby queue (one
// at a time, on a connection of its own), a joining player takes the oldest player waiting on
// a live shard, or waits in a row of its own. The game is started at once in the joining
// player's partition (the joiner's shard serves both players); the waiting player, if it is
// not in that game server, is sent there by its own shard: `session` (`playing`), `seat` and
// `redirect`, read from the row by the lease thread (`deliverMatches`). A player who waits is
// joined again now and then, against older rows only (two players who joined on two shards at
// once both wait, each unseen by the other's join).

extension Shard {
  /// The game server's matchmaker for the partition served under `lease`.
  func matchmaker(for lease: PartitionLeases.Lease) -> GameServer.Matchmaker {
    let number = lease.partition
    let epoch = lease.epoch
    return GameServer.Matchmaker(
      joined: { [self] entrant in
        let join = PendingJoin(partition: number, epoch: epoch, entrant: entrant)
        let schedule = pendingJoins.withLock { pending -> Bool in
          pending.joins.append(join)
          defer { pending.isScheduled = true }
          return !pending.isScheduled
        }
        if schedule { lobbyQueue.async { [self] in drainJoins() } }
      },
      left: { [self] session in
        lobbyQueue.async { [self] in unqueue(session, partition: number) }
      })
  }

  /// Handles the joins that came since the last drain: players of one game server are paired
  /// with each other at once (nobody else can see them: they are in no table yet), oldest
  /// first, as the single server's lobby pairs them; the one left over goes to the lobby table.
  /// Under load many joins come while one statement is under way: most never need one.
  private func drainJoins() {
    let joins = pendingJoins.withLock { pending -> [PendingJoin] in
      defer { pending = ([], false) }
      return pending.joins
    }
    var left: [PendingJoin] = []
    var waiting: [Int: PendingJoin] = [:]
    for join in joins {
      guard let partition = served(join.partition, epoch: join.epoch),
        partition.server.isQueued(join.entrant.session)
      else { continue }
      guard let first = waiting[join.partition] else {
        waiting[join.partition] = join
        continue
      }
      if partition.server.startGame(
        x: .session(first.entrant.session), o: .session(join.entrant.session)) != nil
      {
        waiting[join.partition] = nil
      } else if !partition.server.isQueued(first.entrant.session) {
        waiting[join.partition] = join
      } else {
        left.append(join)
      }
    }
    for join in waiting.values.sorted(by: { $0.entrant.session < $1.entrant.session }) + left {
      matchmake(join.entrant, partition: join.partition, epoch: join.epoch, waitingAs: nil)
    }
  }

  /// The partition served under that epoch, if it still is.
  private func served(_ number: Int, epoch: Int64) -> ServedPartition? {
    guard let partition = served.withLock({ $0[number] }),
      partition.lease.withLock({ $0.epoch }) == epoch
    else { return nil }
    return partition
  }

  /// Pairs a player who joined in partition `number`, or makes it wait in the lobby table (or,
  /// with `own`, its ticket, tries again for a player who waits).
  private func matchmake(
    _ entrant: Lobby.Entrant, partition number: Int, epoch: Int64, waitingAs own: Int64?
  ) {
    // Dropped meanwhile: its sessions were closed (and told to rejoin).
    guard let partition = served(number, epoch: epoch), partition.server.isQueued(entrant.session)
    else { return }
    let server = partition.server
    let here = address.withLock { $0 }
    // A game started here for a player elsewhere, while that player's shard is not yet told
    // (its row not yet marked matched and committed): ended if the pairing fails after all.
    var untold: (game: String, x: String)?
    do throws(PartitionLeases.Failure) {
      let outcome = try lobby.join(
        partition: number, session: entrant.session, name: entrant.name, waitingAs: own
      ) { other throws(PartitionLeases.Failure) -> PartitionLeases.Pairing in
        if other.holder == options.name, other.partition == number {
          // Both in this game server: seated at once, as its own lobby would.
          if server.startGame(x: .session(other.session), o: .session(entrant.session)) != nil {
            _ = waiting.withLock { $0.removeValue(forKey: other.ticket) }
            return .seated
          }
          guard server.isQueued(entrant.session) else {
            // The waiting player's row stays (or is put back): it waits on.
            throw PartitionLeases.Failure(message: "the joining player left", isTransient: false)
          }
          _ = waiting.withLock { $0.removeValue(forKey: other.ticket) }
          return .gone
        }
        // The waiting player is elsewhere (another shard, or another partition here): the game
        // starts here, and its shard sends it here with its seat token, once the start is
        // durable (a token is good only then).
        guard
          let started = server.startGame(x: .remote(name: other.name), o: .session(entrant.session))
        else {
          throw PartitionLeases.Failure(message: "the joining player left", isTransient: false)
        }
        untold = (started.id, other.name)
        if let task = started.started {
          guard
            Self.waitUntilDurable(
              partition.journal, task, within: PartitionLeases.lobbyStartWait)
          else {
            throw PartitionLeases.Failure(
              message: "game \(started.id)'s start could not be journaled", isTransient: true)
          }
        }
        if Self.failsLobbyAfterStart {
          throw PartitionLeases.Failure(
            message: "testing: the pairing fails after the start", isTransient: true)
        }
        return .elsewhere(
          game: started.id, side: "X", token: started.tokens?.x ?? "", address: here,
          opponent: entrant.name)
      }
      switch outcome {
      case .waiting(let ticket):
        if own == nil {
          waiting.withLock {
            $0[ticket] = WaitingPlayer(
              partition: number, epoch: epoch, entrant: entrant, since: .now)
          }
        }
      case .rowGone(let ticket):
        // Not joined again here: the row may be gone because its match was just read, and
        // the lease thread delivers that first (`requeueLostRows`).
        waiting.withLock { $0[ticket]?.hasLostRow = true }
      case .paired:
        if let own { _ = waiting.withLock { $0.removeValue(forKey: own) } }
      }
    } catch {
      if let (game, x) = untold {
        // The waiting player's shard may never be told (the row was not marked matched, or
        // that was not committed): the game ends with nobody winning, and its player here goes
        // back to the lobby; the waiting player's row stays, or comes back with the rollback.
        let ended = server.abandonGame(game)
        process.log(
          "warning: partition \(number): game \(game) of \(x) (X) v \(entrant.name) (O)"
            + " was started, but the pairing failed after the start (\(error)): "
            + (ended ? "the game is closed as abandoned, nobody wins, " : "the game was over, ")
            + "and \(entrant.name) is back in the lobby; both may join again. If the database "
            + "is away or slow, check it")
        return
      }
      // Gone meanwhile (it left, or closed): nothing to say.
      guard server.isQueued(entrant.session) else { return }
      // The joiner stays queued: it may `leave` and `join` again.
      process.log(
        "warning: partition \(number): session \(entrant.session) (\(entrant.name)) could not be "
          + "paired through the lobby table (\(error)); it stays queued here. If the database "
          + "is away, it leaves and joins again once the database answers")
    }
  }

  /// Joins again the youngest few players that waited a while (see the top of this file); at
  /// most one round on the lobby queue at a time.
  func rejoinWaitingPlayers() {
    let due = ContinuousClock.now - .milliseconds(100)
    // At most a few per round: under load, new joins take waiting rows long before this.
    let players = waiting.withLock { $0.filter { $0.value.since < due } }
      .sorted { $0.key > $1.key }.prefix(8)
    guard !players.isEmpty,
      rejoining.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else { return }
    lobbyQueue.async { [self] in
      for (ticket, player) in players {
        // Still waiting (a match or a leave may have come meanwhile).
        guard waiting.withLock({ $0[ticket] }) != nil else { continue }
        matchmake(
          player.entrant, partition: player.partition, epoch: player.epoch, waitingAs: ticket)
      }
      rejoining.store(false, ordering: .releasing)
    }
  }

  /// Takes a player who left the queue out of the lobby table.
  private func unqueue(_ session: Int, partition number: Int) {
    waiting.withLock { waiting in
      for (ticket, player) in waiting
      where player.partition == number && player.entrant.session == session {
        waiting[ticket] = nil
      }
    }
    do throws(PartitionLeases.Failure) {
      if let game = try lobby.leaveLobby(partition: number, session: session), !game.isEmpty {
        process.log(
          "partition \(number): session \(session) left the queue just as it was paired: game "
            + "\(game) waits for it in vain; its opponent may leave")
      }
    } catch {
      process.log(
        "warning: partition \(number): session \(session) left the queue, but its lobby row "
          + "could not be removed (\(error)); it is removed when this shard stops or dies")
    }
  }

  /// Sends each of this shard's waiting players that another shard paired to its game: called
  /// by the lease thread while players wait.
  func deliverMatches() throws(PartitionLeases.Failure) {
    let matches = try leases.takeMatches()
    for match in matches { deliver(match) }
    requeueLostRows()
  }

  /// Joins again, as new, the waiting players whose rows were found gone: after the matches
  /// read above were delivered, so a row gone because its match was read is never replaced
  /// (its player is no longer waiting).
  private func requeueLostRows() {
    let lost = waiting.withLock { waiting -> [WaitingPlayer] in
      let lost = waiting.filter(\.value.hasLostRow)
      for ticket in lost.keys { waiting[ticket] = nil }
      return Array(lost.values)
    }
    for player in lost {
      process.log(
        "warning: partition \(player.partition): the lobby row of session "
          + "\(player.entrant.session) (\(player.entrant.name)) was gone (a database crash, or "
          + "this shard's announcement expired); it joins again")
      lobbyQueue.async { [self] in
        matchmake(
          player.entrant, partition: player.partition, epoch: player.epoch, waitingAs: nil)
      }
    }
  }

  private func deliver(_ match: PartitionLeases.Match) {
    // Only to the player known to wait in that row, in the game server of the epoch it joined
    // under: a partition dropped and taken back has a new game server, whose session numbers
    // start again at 1 (the match would go to another player).
    let player = waiting.withLock { $0.removeValue(forKey: match.ticket) }
    guard let player, player.partition == match.partition,
      player.entrant.session == match.session,
      let partition = served(match.partition, epoch: player.epoch),
      let name = partition.server.takeQueued(match.session),
      let (key, route) = routes.withLock({ routes in
        routes.first { $0.value.partition === partition && $0.value.session == match.session }
      })
    else {
      process.log(
        "partition \(match.partition): session \(match.session) was paired in game "
          + "\(match.game) (\(match.address)) but is gone; that game waits for it in vain")
      return
    }
    let isO = match.side == "O"
    // What the single server would send on a pairing, then where the game is served.
    route.muted.set(true)
    let connection = route.connection
    send(
      .session(
        name: name,
        phase: .playing(game: match.game, player: isO ? .o : .x, opponent: match.opponent)),
      to: connection)
    send(.seat(game: match.game, player: isO ? .o : .x, token: match.token), to: connection)
    send(.redirect(game: match.game, address: match.address), to: connection)
    // The session here ends without a word (its frames are muted); the connection stays open
    // for a `rejoin`.
    _ = routes.withLock { $0.removeValue(forKey: key) }
    partition.server.disconnect(match.session, reason: .disconnected)
  }

  /// Waits until `task`'s journal entry is durable, or `bound` passes; whether it was.
  static func waitUntilDurable(
    _ journal: GameJournal, _ task: StoreTask, within bound: Duration
  ) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let committed = Flag(false)
    // Detached: the caller's thread waits below, and must not be the one the task needs.
    Task.detached {
      do throws(ActionLogError) {
        try await journal.log.waitUntilDurable(task)
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
