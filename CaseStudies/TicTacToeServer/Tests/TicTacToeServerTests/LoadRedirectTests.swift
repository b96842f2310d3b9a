import Foundation
import Synchronization
import Testing
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// The load tool against several servers that redirect: it spreads its clients over the ports,
/// follows each `redirect` with a new connection and a `rejoin`, and still counts every move.
///
/// Each client plays one whole game (`--one-game`): a run ends when every game is over, so what
/// it counts is a fact, not what a busy machine managed in a second; `--duration` only turns a
/// hang into a failure.
@Suite struct LoadRedirectTests {
  /// Runs the load tool on a thread of its own: the servers under test need the cooperative
  /// pool (their journals' acknowledgements), which a test blocked in `waitUntilExit` would
  /// hold a thread of (two such tests at once held both of this machine's, and the journals
  /// stalled).
  static func load(_ arguments: [String]) async throws -> Program.Output {
    // wall-clock: a bound that only turns a hang into a failure; the run ends when every game is.
    let arguments = arguments + ["--one-game", "--duration", "300"]
    return try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(
          with: Result { try Program.run("tictactoe-load", input: Data(), arguments: arguments) })
      }.start()
    }
  }

  /// A front that sends each of its players elsewhere once seated: it serves the real server's
  /// sessions, and after a session's `seat` frame it lets the seat go (no forfeit) and sends
  /// `redirect` to the real server's address, as a shard sends a player whose game another
  /// shard serves.
  static func redirectingFront(
    to server: GameServer, at address: String
  ) -> LineServer.Handler {
    LineServer.Handler(
      open: { connection in
        let muted = Atomic(false)
        let session = Atomic(0)
        let id = server.connect(
          ClientLink(
            deliver: { frame in
              guard !muted.load(ordering: .acquiring) else { return }
              connection.send(bytes: frame.bytes)
              guard case .seat(let game, _, _) = frame else { return }
              muted.store(true, ordering: .releasing)
              // Off the thread delivering the frame: the seat is let go, then the client told.
              let id = session.load(ordering: .acquiring)
              DispatchQueue.global().async {
                server.disconnect(id, reason: .shutdown)
                connection.send(bytes: ServerFrame.redirect(game: game, address: address).bytes)
              }
            },
            close: {}))
        session.store(id, ordering: .releasing)
        connection.context.store(id, ordering: .relaxed)
      },
      line: { connection, line in
        server.receive(line, from: connection.context.load(ordering: .relaxed))
      },
      end: { connection, _ in
        server.disconnect(connection.context.load(ordering: .relaxed), reason: .shutdown)
      })
  }

  @Test func theToolFollowsRedirectsAndLosesNoMove() async throws {
    let directory = DurableServerTests.newDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do {
      let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
      let server = GameServer(journal: journal)
      let real = try LineServer(port: 0, handler: server.lineHandler)
      real.start()
      let front = try LineServer(
        port: 0, handler: Self.redirectingFront(to: server, at: real.address))
      front.start()
      defer {
        front.stop {}
        real.stop { server.shutdown() }
      }
      let output = try await Self.load([
        "--connections", "20", "--ports", "\(front.port),\(real.port)",
      ])
      #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
      #expect(
        output.standardOutput.contains("lost moves: 0, duplicated moves: 0, refused frames: 0"))
      #expect(output.standardOutput.contains("games finished: 10;"), "\(output.standardOutput)")
      // Half the clients start on the front: each is sent to the real server once, when seated.
      let line = output.standardOutput.split(separator: "\n").first {
        $0.hasPrefix("servers: 2")
      }
      let followed =
        line.flatMap { line in
          line.range(of: "redirects followed: ").flatMap { range in
            Int(line[range.upperBound...].prefix { $0.isNumber })
          }
        } ?? 0
      #expect(followed == 10, "\(output.standardOutput)")
    }
  }

  /// Games a front moved once.
  final class MovedGames: Sendable {
    let games = Mutex<Set<String>>([])
  }

  /// A link's mute switch.
  final class Mute: Sendable {
    let isOn = Atomic(false)
  }

  /// A front that, at the first move of each game sent through it, stops serving that game as
  /// a shard that lost the game's partition does: the move is not played, the client is told
  /// `moved`, then `bye`, and the connection closes; the seat is let go without a forfeit.
  static func movingFront(to server: GameServer, moved: MovedGames) -> LineServer.Handler {
    LineServer.Handler(
      open: { connection in
        let mute = Mute()
        // Reached from `line` through the connection's descriptor.
        mutes.withLock { $0[connection.id] = mute }
        connection.context.store(
          server.connect(
            ClientLink(
              deliver: { frame in
                if !mute.isOn.load(ordering: .acquiring) { connection.send(bytes: frame.bytes) }
              },
              close: {})), ordering: .relaxed)
      },
      line: { connection, line in
        let id = connection.context.load(ordering: .relaxed)
        if case .move(let game, _, _)? = try? ClientFrame.decode(line),
          moved.games.withLock({ $0.insert(game).inserted })
        {
          mutes.withLock { $0[connection.id] }?.isOn.store(true, ordering: .releasing)
          server.disconnect(id, reason: .shutdown)
          connection.send(
            bytes: ServerFrame.error(
              code: "moved", message: "this shard no longer serves game \(game)", seq: nil
            ).bytes)
          connection.send(bytes: ServerFrame.bye(.shutdown).bytes)
          connection.close()
          return
        }
        server.receive(line, from: id)
      },
      end: { connection, _ in
        server.disconnect(connection.context.load(ordering: .relaxed), reason: .shutdown)
      })
  }

  /// The mute switches of the moving front's links, by connection.
  static let mutes = Mutex<[Int32: Mute]>([:])

  @Test func theToolRejoinsAfterMovedAndSendsItsMoveAgain() async throws {
    let directory = DurableServerTests.newDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do {
      let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
      let server = GameServer(journal: journal)
      let real = try LineServer(port: 0, handler: server.lineHandler)
      real.start()
      let moved = MovedGames()
      let front = try LineServer(port: 0, handler: Self.movingFront(to: server, moved: moved))
      front.start()
      defer {
        front.stop {}
        real.stop { server.shutdown() }
      }
      let output = try await Self.load([
        "--connections", "20", "--ports", "\(front.port),\(real.port)",
      ])
      #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
      #expect(
        output.standardOutput.contains("lost moves: 0, duplicated moves: 0, refused frames: 0"))
      let line = output.standardOutput.split(separator: "\n").first {
        $0.hasPrefix("servers: 2")
      }
      #expect(output.standardOutput.contains("games finished: 10;"), "\(output.standardOutput)")
      // Every client on the front moves in its game, so at least one game was moved; each
      // `moved` the front sent is one rejoin.
      let sent = moved.games.withLock { $0.count }
      #expect(sent > 0)
      #expect(
        line?.hasSuffix("rejoins after moved: \(sent)") == true, "\(sent): \(output.standardOutput)"
      )
    }
  }

  /// Per game: the connection of X's first move, muted so that its acknowledgement never
  /// reaches it, and whether O moved since.
  final class RetryScript: Sendable {
    let firstMovers = Mutex<[String: Int32]>([:])
    let done = Mutex<Set<String>>([])
    /// The front's connections and their mute switches, by descriptor.
    let links = Mutex<[Int32: (connection: LineConnection, mute: Mute)]>([:])
  }

  /// A front that makes every game's first move a retry answered with an older view: it plays
  /// X's first move but mutes X's link, so X never sees it acknowledged; once O moved (through
  /// the front too), it tells X `moved` and closes, so X rejoins (on this front again) with the
  /// game at O's move and sends its move again, whose answer is the view just after it.
  static func retryingFront(to server: GameServer, script: RetryScript) -> LineServer.Handler {
    LineServer.Handler(
      open: { connection in
        let mute = Mute()
        script.links.withLock { $0[connection.id] = (connection, mute) }
        connection.context.store(
          server.connect(
            ClientLink(
              deliver: { frame in
                if !mute.isOn.load(ordering: .acquiring) { connection.send(bytes: frame.bytes) }
              },
              close: {})), ordering: .relaxed)
      },
      line: { connection, line in
        let id = connection.context.load(ordering: .relaxed)
        guard case .move(let game, _, _)? = try? ClientFrame.decode(line),
          !script.done.withLock({ $0.contains(game) })
        else {
          server.receive(line, from: id)
          return
        }
        let first = script.firstMovers.withLock { movers -> Int32? in
          if let first = movers[game] { return first }
          movers[game] = connection.id
          return nil
        }
        guard let first, first != connection.id else {
          // X's first move: played, never acknowledged to X.
          script.links.withLock { $0[connection.id] }?.mute.isOn.store(true, ordering: .releasing)
          server.receive(line, from: id)
          return
        }
        // O's move: played, then X is moved away.
        script.done.withLock { _ = $0.insert(game) }
        server.receive(line, from: id)
        guard let x = script.links.withLock({ $0[first] })?.connection else { return }
        server.disconnect(x.context.load(ordering: .relaxed), reason: .shutdown)
        x.send(
          bytes: ServerFrame.error(
            code: "moved", message: "this shard no longer serves game \(game)", seq: nil
          ).bytes)
        x.send(bytes: ServerFrame.bye(.shutdown).bytes)
        x.close()
      },
      end: { connection, _ in
        server.disconnect(connection.context.load(ordering: .relaxed), reason: .shutdown)
      })
  }

  @Test func aRetryAnsweredWithAnOlderViewLeavesTheClientItsTurn() async throws {
    let directory = DurableServerTests.newDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do {
      let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
      let server = GameServer(journal: journal)
      let script = RetryScript()
      let front = try LineServer(port: 0, handler: Self.retryingFront(to: server, script: script))
      front.start()
      defer { front.stop { server.shutdown() } }
      let output = try await Self.load(["--connections", "2", "--ports", "\(front.port)"])
      #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
      #expect(
        output.standardOutput.contains("lost moves: 0, duplicated moves: 0, refused frames: 0"))
      #expect(output.standardOutput.contains("games finished: 1;"), "\(output.standardOutput)")
      #expect(script.done.withLock { $0.count } == 1)
    }
  }

  @Test func badServerListsAreRefused() throws {
    for (arguments, message) in [
      (["--ports", "7001,x"], "--ports: 7001,x is not a list of ports"),
      (["--ports", "7001,0"], "--ports: 7001,0 is not a list of ports"),
      (["--server-pid", "1,-2"], "--server-pid: 1,-2 is not a process id"),
      (["--server-pid", "1", "--server-log", "a,b"], "--server-log: 2 logs for 1 server pids"),
    ] {
      let output = try LoadCommandTests.run(arguments)
      #expect(output.status == 64, "\(arguments)")
      #expect(
        output.standardError.hasPrefix("tictactoe-load: \(message)"),
        "\(arguments): \(output.standardError)")
    }
  }
}
