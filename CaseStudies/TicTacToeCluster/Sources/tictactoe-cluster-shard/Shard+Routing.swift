import Foundation
import PostgresActionLog
import TicTacToeServerCore

// Frames to the partition that serves them: a connection is attached to one partition's game
// server at its first frame that needs one (a `rejoin` to its game's partition, anything else
// to the home partition, where the shard's own players meet), and stays there. A `rejoin` for
// a game of a partition this connection is not attached to is answered with `redirect` to the
// partition's owner, or `no-owner`.

extension Shard {
  /// The handler of the shard's ``LineServer``.
  var handler: LineServer.Handler {
    LineServer.Handler(
      open: { connection in
        // What a game server's session says first; the session attached later keeps quiet.
        connection.send(bytes: ServerFrame.session(name: nil, phase: .connected).bytes)
      },
      line: { [self] connection, line in
        route(Array(line), from: connection)
      },
      end: { [self] connection, cause in
        end(connection, cause)
      })
  }

  /// Where a new player goes: the lowest partition served, so that every player of this shard
  /// meets in the same lobby.
  var home: ServedPartition? {
    served.withLock { served in served.min { $0.key < $1.key }?.value }
  }

  func route(_ line: [UInt8], from connection: LineConnection) {
    let key = ObjectIdentifier(connection)
    let route = routes.withLock { $0[key] }
    let frame = try? ClientFrame.decode(line)
    if case .rejoin(let game, _)? = frame {
      let number = partition(ofGame: game)
      if let route {
        guard route.partition.number != number else {
          route.partition.server.receive(line, from: route.session)
          return
        }
      } else if let local = served.withLock({ $0[number] }), !local.isMoving {
        let attached = attach(connection, to: local)
        local.server.receive(line, from: attached.session)
        return
      }
      redirect(connection, game: game, partition: number)
      return
    }
    if let route {
      route.partition.server.receive(line, from: route.session)
      return
    }
    guard let frame else {
      // Refused as a game server refuses it: the same code and message.
      do throws(FrameError) {
        _ = try ClientFrame.decode(line)
      } catch {
        send(.error(code: error.code.name, message: error.message, seq: nil), to: connection)
      }
      return
    }
    switch frame {
    case .ping:
      send(.pong, to: connection)
    case .quit:
      send(.bye(.quit), to: connection)
      connection.close()
    default:
      guard let home, !home.isMoving else {
        send(
          .error(
            code: "no-partition",
            message: "this shard serves no partition yet: try again in a moment, or another "
              + "shard", seq: nil), to: connection)
        return
      }
      let attached = attach(connection, to: home)
      home.server.receive(line, from: attached.session)
    }
  }

  /// Opens a session for `connection` in `partition`'s game server.
  func attach(_ connection: LineConnection, to partition: ServedPartition) -> Route {
    let greeting = Flag(true)
    let muted = Flag(false)
    let link = ClientLink(
      deliver: { frame in
        if muted.isSet { return }
        // The shard greeted the client when it connected.
        if case .session(_, .connected) = frame, greeting.take() { return }
        if case .bye(.shutdown) = frame, let message = partition.movedMessage {
          connection.send(bytes: ServerFrame.error(code: "moved", message: message, seq: nil).bytes)
        }
        connection.send(bytes: frame.bytes)
      },
      close: { if !muted.isSet { connection.close() } })
    let route = Route(
      partition: partition, session: partition.server.connect(link), connection: connection,
      muted: muted)
    greeting.set(false)
    routes.withLock { $0[ObjectIdentifier(connection)] = route }
    // Dropped meanwhile: its shutdown may have missed this session.
    if partition.isMoving { partition.server.disconnect(route.session, reason: .shutdown) }
    return route
  }

  /// Answers a `rejoin` this connection cannot take here: `redirect` to the owner of the game's
  /// partition, read from the lease table off the loop thread, or `no-owner`.
  func redirect(_ connection: LineConnection, game: String, partition number: Int) {
    let own = address.withLock { $0 }
    if served.withLock({ $0[number] }) != nil {
      // Served here, by another game server than this connection's: a new connection takes it.
      send(.redirect(game: game, address: own), to: connection)
      return
    }
    DispatchQueue.global().async { [self] in
      let answer: ServerFrame
      do throws(PartitionLeases.Failure) {
        if let owner = try lookups.owner(of: number), owner.holder != options.name,
          let address = owner.address
        {
          answer = .redirect(game: game, address: address)
        } else {
          // Nobody, or this shard between its claim and its recovery.
          answer = .error(
            code: "no-owner",
            message: "game \(game)'s partition \(number) has no live owner yet: send your "
              + "rejoin again in a moment", seq: nil)
        }
      } catch {
        answer = .error(
          code: "unavailable",
          message: "the cluster's database cannot be reached (\(error.message)): send your "
            + "rejoin again in a moment", seq: nil)
      }
      send(answer, to: connection)
    }
  }

  func end(_ connection: LineConnection, _ cause: LineConnection.Cause) {
    guard let route = routes.withLock({ $0.removeValue(forKey: ObjectIdentifier(connection)) })
    else {
      if cause == .frameTooLarge {
        send(.bye(.frameTooLarge), to: connection)
        connection.close()
      }
      return
    }
    // A session of a partition that is going, or whose journal stopped, forfeits nothing: its
    // game goes on at the partition's next holder.
    let reason: CloseReason
    if route.partition.isMoving {
      reason = .shutdown
    } else {
      reason =
        switch cause {
        case .peerClosed: .disconnected
        case .frameTooLarge: .frameTooLarge
        case .slowReader: .slowReader
        }
    }
    route.partition.server.disconnect(route.session, reason: reason)
  }

  func send(_ frame: ServerFrame, to connection: LineConnection) {
    connection.send(bytes: frame.bytes)
  }
}
