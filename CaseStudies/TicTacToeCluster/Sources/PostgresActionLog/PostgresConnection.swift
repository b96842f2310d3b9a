import CLibPQ
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One libpq connection, used by one thread at a time (its owner serializes every call).
///
/// Statements are always sent with `PQsendQueryParams`: values travel as parameters, never
/// inside the SQL text. Each waits for its answer at most `answerTimeout`: a server that stops
/// answering (a stalled disk, a paused machine) still has its kernel acknowledge the packets, so
/// libpq alone would wait forever.
final class PostgresConnection {
  /// A statement's parameter: text (sent NUL-terminated, so it may hold no NUL) or binary
  /// (`bytea`).
  enum Parameter {
    case text(String)
    case binary(Data)
  }

  /// The libpq connection; closed by `deinit`.
  private let connection: OpaquePointer

  /// How long a statement waits for its answer.
  let answerTimeout: Duration

  /// Set when a statement timed out: the connection is in an unknown state, never used again.
  private var isAbandoned = false

  /// Connects with a libpq connection string (`host=127.0.0.1 port=5432 dbname=app`, a
  /// `postgresql://` URI, or empty for libpq's environment).
  ///
  /// A connection string without `connect_timeout` gets 10 seconds: libpq's default is to wait
  /// forever.
  ///
  /// - Throws: `PostgresConnection.Failure` with libpq's message if the connection fails.
  init(_ connectionString: String, answerTimeout: Duration = .seconds(10)) throws(Failure) {
    self.answerTimeout = answerTimeout
    // The connection string is expanded in place of `dbname`; its own `connect_timeout`, if
    // any, overrides the one before it.
    let keywords = ["connect_timeout", "dbname"]
    let values = ["10", connectionString]
    let made = keywords.withCStrings { keywords in
      values.withCStrings { values in PQconnectdbParams(keywords, values, 1) }
    }
    guard let connection = made else {
      throw Failure(message: "libpq could not allocate a connection", isConnectionLost: true)
    }
    guard PQstatus(connection) == CONNECTION_OK else {
      let message = String(cString: PQerrorMessage(connection))
      PQfinish(connection)
      throw Failure(message: message, isConnectionLost: true)
    }
    self.connection = connection
    // Notices (such as "relation already exists, skipping") would go to standard error.
    _ = try execute("SET client_min_messages TO warning")
  }

  deinit {
    PQfinish(connection)
  }

  /// Whether the connection to the server still works, as far as libpq knows.
  var isConnected: Bool { !isAbandoned && PQstatus(connection) == CONNECTION_OK }

  /// Why a statement or a connection failed; `isConnectionLost` if the connection is gone (or
  /// abandoned), so that the caller reconnects.
  struct Failure: Error {
    var message: String
    var isConnectionLost: Bool
    /// The server's SQLSTATE code (such as `57P01`, an administrator's shutdown), if it sent one.
    var sqlState: String? = nil

    /// Whether trying again later may succeed: the connection is gone, or the server refused
    /// for a reason that passes (classes 08 connection, 40 transaction rollback, 53
    /// insufficient resources such as a full disk, 57 operator intervention such as a shutdown
    /// in progress, and 25006, a read-only server: a standby, until a failover ends).
    var isTransient: Bool {
      isConnectionLost || sqlState == "25006"
        || ["08", "40", "53", "57"].contains(sqlState.map { String($0.prefix(2)) })
    }
  }

  /// A statement's result rows, each column's bytes or `nil` for NULL, and its command tag.
  struct Result {
    var rows: [[Data?]]
    var commandStatus: String
    var affectedRows: Int
  }

  /// Runs `sql` with `parameters` (`$1`, `$2`, …), asking for results in binary when
  /// `binaryResults` (a `bytea` column's raw bytes), and waits for the answer at most
  /// `answerTimeout`.
  ///
  /// - Throws: `Failure` with the server's or libpq's message; a text parameter holding a NUL
  ///   is refused before anything is sent.
  func execute(
    _ sql: String, _ parameters: [Parameter] = [], binaryResults: Bool = false
  ) throws(Failure) -> Result {
    for case .text(let text) in parameters where text.utf8.contains(0) {
      throw Failure(
        message: "a text parameter holds a NUL byte, where libpq would cut it",
        isConnectionLost: false)
    }
    guard !isAbandoned else {
      throw Failure(message: "the connection was abandoned", isConnectionLost: true)
    }
    try send(sql, parameters, binaryResults: binaryResults)
    let result = try awaitResult()
    defer { PQclear(result) }
    let status = PQresultStatus(result)
    guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
      let message = String(cString: PQresultErrorMessage(result))
      let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C")))
      throw Failure(
        message: message.trimmingCharacters(in: .whitespacesAndNewlines),
        isConnectionLost: !isConnected, sqlState: sqlState.map { String(cString: $0) })
    }
    var rows: [[Data?]] = []
    for row in 0..<PQntuples(result) {
      rows.append(
        (0..<PQnfields(result)).map { column in
          guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column)
          else { return nil }
          return Data(bytes: value, count: Int(PQgetlength(result, row, column)))
        })
    }
    return Result(
      rows: rows, commandStatus: String(cString: PQcmdStatus(result)),
      affectedRows: Int(String(cString: PQcmdTuples(result))) ?? 0)
  }

  /// Sends the statement (libpq's blocking mode: it returns once the statement is sent).
  private func send(
    _ sql: String, _ parameters: [Parameter], binaryResults: Bool
  ) throws(Failure) {
    // Each value copied once into memory libpq reads until the call returns.
    let buffers: [UnsafeMutableRawBufferPointer] = parameters.map { parameter in
      switch parameter {
      case .text(let text):
        var bytes = Array(text.utf8)
        bytes.append(0)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        return buffer
      case .binary(let data):
        let buffer = UnsafeMutableRawBufferPointer.allocate(
          byteCount: max(data.count, 1), alignment: 1)
        buffer.copyBytes(from: data)
        return buffer
      }
    }
    defer { for buffer in buffers { buffer.deallocate() } }
    let values: [UnsafePointer<CChar>?] = buffers.map {
      UnsafePointer($0.baseAddress?.assumingMemoryBound(to: CChar.self))
    }
    let lengths: [Int32] = parameters.map {
      if case .binary(let data) = $0 { Int32(data.count) } else { 0 }
    }
    let formats: [Int32] = parameters.map {
      if case .binary = $0 { 1 } else { 0 }
    }
    guard
      PQsendQueryParams(
        connection, sql, Int32(parameters.count), nil, values, lengths, formats,
        binaryResults ? 1 : 0) == 1
    else {
      throw Failure(
        message: String(cString: PQerrorMessage(connection)), isConnectionLost: !isConnected)
    }
  }

  /// The statement's result (the last, if it gave several), waiting for it at most
  /// `answerTimeout`; abandons the connection if it does not come.
  private func awaitResult() throws(Failure) -> OpaquePointer {
    let deadline = ContinuousClock.now + answerTimeout
    var last: OpaquePointer?
    while true {
      while PQisBusy(connection) == 1 {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else {
          if let last { PQclear(last) }
          // The answer may still come, or the statement may have been carried out: the
          // connection is in an unknown state, so it is never used again.
          isAbandoned = true
          throw Failure(
            message: "no answer from the server within \(answerTimeout)", isConnectionLost: true)
        }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
        if poll(&descriptor, 1, milliseconds) < 0 && errno != EINTR { break }
        if PQconsumeInput(connection) == 0 { break }
      }
      guard let result = PQgetResult(connection) else { break }
      if let last { PQclear(last) }
      last = result
    }
    guard let last else {
      throw Failure(
        message: String(cString: PQerrorMessage(connection)).trimmingCharacters(
          in: .whitespacesAndNewlines), isConnectionLost: true)
    }
    return last
  }
}

extension Array where Element == String {
  /// Calls `body` with the strings as a NULL-terminated array of C strings.
  fileprivate func withCStrings<R>(_ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
  }
}
