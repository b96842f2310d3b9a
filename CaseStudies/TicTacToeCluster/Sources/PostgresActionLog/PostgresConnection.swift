import CLibPQ
import Foundation

/// One libpq connection, used by one thread at a time (its owner serializes every call).
///
/// Statements are always sent with `PQexecParams`: values travel as parameters, never inside
/// the SQL text.
final class PostgresConnection {
  /// A statement's parameter: text (NUL-terminated by `execute`) or binary (`bytea`).
  enum Parameter {
    case text(String)
    case binary(Data)
  }

  /// The libpq connection; closed by `deinit`.
  private let connection: OpaquePointer

  /// Connects with a libpq connection string, such as `host=127.0.0.1 port=5432 dbname=app`.
  ///
  /// - Throws: `PostgresConnection.Failure` with libpq's message if the connection fails.
  init(_ connectionString: String) throws(Failure) {
    guard let connection = PQconnectdb(connectionString) else {
      throw Failure(message: "libpq could not allocate a connection", isConnectionLost: true)
    }
    guard PQstatus(connection) == CONNECTION_OK else {
      let message = String(cString: PQerrorMessage(connection))
      PQfinish(connection)
      throw Failure(message: message, isConnectionLost: true)
    }
    self.connection = connection
    // Notices (such as "relation already exists, skipping") would go to standard error.
    if let result = PQexec(connection, "SET client_min_messages TO warning") { PQclear(result) }
  }

  deinit {
    PQfinish(connection)
  }

  /// Whether the connection to the server still works, as far as libpq knows.
  var isConnected: Bool { PQstatus(connection) == CONNECTION_OK }

  /// Why a statement or a connection failed; `isConnectionLost` if the connection is gone, so
  /// that the caller reconnects.
  struct Failure: Error {
    var message: String
    var isConnectionLost: Bool
    /// The server's SQLSTATE code (such as `57P01`, an administrator's shutdown), if it sent one.
    var sqlState: String? = nil

    /// Whether trying again later may succeed: the connection is gone, or the server refused
    /// for a reason that passes (classes 08 connection, 40 transaction rollback, 53
    /// insufficient resources, 57 operator intervention such as a shutdown in progress).
    var isTransient: Bool {
      isConnectionLost || ["08", "40", "53", "57"].contains(sqlState.map { String($0.prefix(2)) })
    }
  }

  /// A statement's result rows, each column's bytes or `nil` for NULL, and its command tag.
  struct Result {
    var rows: [[Data?]]
    var commandStatus: String
    var affectedRows: Int
  }

  /// Runs `sql` with `parameters` (`$1`, `$2`, …), asking for results in binary when
  /// `binaryResults` (a `bytea` column's raw bytes, a `bigint` as 8 big-endian bytes).
  ///
  /// - Throws: `Failure` with the server's or libpq's message.
  func execute(
    _ sql: String, _ parameters: [Parameter] = [], binaryResults: Bool = false
  ) throws(Failure) -> Result {
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
    let result = PQexecParams(
      connection, sql, Int32(parameters.count), nil, values, lengths, formats,
      binaryResults ? 1 : 0)
    defer { PQclear(result) }
    let status = PQresultStatus(result)
    guard let result, status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
      let message =
        result.map { String(cString: PQresultErrorMessage($0)) }
        ?? String(cString: PQerrorMessage(connection))
      let sqlState = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }
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
}
