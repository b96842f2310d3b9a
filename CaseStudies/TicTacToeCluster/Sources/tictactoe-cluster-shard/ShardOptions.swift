import Foundation
import TicTacToeServerCore

/// The shard's settings, from its arguments.
struct ShardOptions {
  var database = ""
  var name = ""
  var host = "127.0.0.1"
  var port: UInt16 = 7878
  /// `HOST:PORT` for redirects; `nil` for the address listened on.
  var advertise: String?
  var partitions = 16
  var leaseSeconds = 10.0
  var idleTimeout = 60.0
  var abandonAfter = 3600.0
  var snapshotEvery = 1000
  var quiet = false

  init(_ arguments: [String], refusing refuse: @escaping (String) -> Never) {
    var arguments = ArgumentList(arguments, refusing: refuse)
    while let argument = arguments.next() {
      switch argument {
      case "--database": database = arguments.value(of: argument)
      case "--name": name = arguments.value(of: argument)
      case "--listen":
        let value = arguments.value(of: argument)
        guard let colon = value.lastIndex(of: ":"),
          let port = UInt16(value[value.index(after: colon)...])
        else { refuse("--listen: \(value) is not HOST:PORT") }
        host = String(value[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.port = port
      case "--advertise": advertise = arguments.value(of: argument)
      case "--partitions": partitions = arguments.number(of: argument, as: Int.self)
      case "--lease": leaseSeconds = arguments.number(of: argument, as: Double.self)
      case "--idle-timeout": idleTimeout = arguments.number(of: argument, as: Double.self)
      case "--abandon-after": abandonAfter = arguments.number(of: argument, as: Double.self)
      case "--snapshot-every": snapshotEvery = arguments.number(of: argument, as: Int.self)
      case "--quiet": quiet = true
      case "-h", "--help":
        FileHandle.standardOutput.write(Data((shardUsage + "\n").utf8))
        exit(0)
      default: refuse("unknown argument: \(argument)")
      }
    }
    guard !name.isEmpty, !name.utf8.contains(0) else { refuse("--name: a name is needed") }
    guard partitions > 0, partitions <= 4096 else {
      refuse("--partitions: \(partitions) is not from 1 to 4096")
    }
    // Bounded, so that the conversions to whole milliseconds cannot trap (NaN fails too).
    guard leaseSeconds >= 0.5, leaseSeconds <= 3600 else {
      refuse("--lease: \(leaseSeconds) is not a number of seconds from 0.5 to 3600")
    }
    guard idleTimeout > 0, idleTimeout <= 86_400 else {
      refuse("--idle-timeout: \(idleTimeout) is not a number of seconds from 0 to 86400")
    }
    guard abandonAfter > 0, abandonAfter <= 3_153_600_000 else {
      refuse("--abandon-after: \(abandonAfter) is not a number of seconds from 0 to 3153600000")
    }
    guard snapshotEvery > 0 else { refuse("--snapshot-every: must be positive") }
    if let advertise,
      advertise.lastIndex(of: ":").flatMap({ UInt16(advertise[advertise.index(after: $0)...]) })
        == nil
    {
      refuse("--advertise: \(advertise) is not HOST:PORT")
    }
  }

  var leaseTime: Duration { .milliseconds(Int64(leaseSeconds * 1000)) }
}
