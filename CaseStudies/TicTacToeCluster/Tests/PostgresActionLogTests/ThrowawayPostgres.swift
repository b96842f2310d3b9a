import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A PostgreSQL server for one test: `initdb` in a temporary directory, `pg_ctl start` on a free
/// loopback port, as user `postgres` (through `runuser`) when the tests run as root, since
/// PostgreSQL refuses to run as root.
struct ThrowawayPostgres {
  let directory: String
  let port: Int
  private let binaries: String

  /// A libpq connection string for the server's `postgres` database.
  var connectionString: String {
    "host=127.0.0.1 port=\(port) user=postgres dbname=postgres connect_timeout=10"
  }

  /// Runs `body` with a started server, and stops and removes it afterwards, however `body` ends.
  static func with<T>(_ body: (ThrowawayPostgres) async throws -> T) async throws -> T {
    let server = try ThrowawayPostgres()
    defer { server.stop() }
    try server.start()
    return try await body(server)
  }

  private init() throws {
    let versions = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")
    guard let newest = versions.compactMap(Int.init).max() else {
      throw Failure("no PostgreSQL in /usr/lib/postgresql: apt-get install postgresql")
    }
    binaries = "/usr/lib/postgresql/\(newest)/bin"
    directory = NSTemporaryDirectory() + "pg-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    port = try Self.freeLoopbackPort()
    if getuid() == 0 { try Self.run(["/bin/chown", "postgres:postgres", directory]) }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  private func start() throws {
    try runAsPostgres([
      binaries + "/initdb", "-D", directory + "/data", "-U", "postgres",
      "-A", "trust", "--no-sync",
    ])
    try startServer()
  }

  /// Stops the server, keeping its data (`pg_ctl stop -m fast`: sessions are ended, as in a
  /// restart by an operator).
  func stopServer() throws {
    try runAsPostgres([
      binaries + "/pg_ctl", "stop", "-w", "-m", "fast", "-D", directory + "/data",
    ])
  }

  /// Starts the server on its data and port, and returns once it accepts connections.
  func startServer() throws {
    // Loopback only; the socket in the test's own directory. `-w` waits until the server
    // accepts connections (or pg_ctl's own timeout fails it).
    try runAsPostgres([
      binaries + "/pg_ctl", "start", "-w", "-t", "60", "-D", directory + "/data",
      "-l", directory + "/server.log",
      "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1",
    ])
  }

  func stop() {
    try? runAsPostgres([
      binaries + "/pg_ctl", "stop", "-w", "-m", "immediate", "-D",
      directory + "/data",
    ])
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func runAsPostgres(_ arguments: [String]) throws {
    try Self.run(
      getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments)
  }

  /// Runs `arguments` and waits for it with `waitpid`: Foundation's `Process` was seen never to
  /// return from `waitUntilExit` once `pg_ctl` had left the server running in the background.
  private static func run(_ arguments: [String]) throws {
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    let spawned = posix_spawn(&pid, arguments[0], nil, nil, argv, environ)
    guard spawned == 0 else { throw Failure("cannot start \(arguments[0]): \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { throw Failure("waitpid failed for \(arguments[0])") }
    }
    guard status == 0 else {
      throw Failure("\(arguments.joined(separator: " ")) exited with status \(status)")
    }
  }

  /// A port the kernel hands out for 127.0.0.1 at this moment.
  private static func freeLoopbackPort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw Failure("socket failed") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
      }
    }
    guard bound else { throw Failure("bind to 127.0.0.1 failed") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
