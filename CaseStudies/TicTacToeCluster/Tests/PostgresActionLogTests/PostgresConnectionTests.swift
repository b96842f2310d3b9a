import Foundation
import Testing

@testable import PostgresActionLog

/// The libpq connection against a real, throwaway PostgreSQL.
@Suite(.serialized) struct PostgresConnectionTests {
  @Test func parametersRoundTripBytesExactlyAndSQLIsNeverBuiltFromThem() async throws {
    try await ThrowawayPostgres.with { server in
      let connection = try PostgresConnection(server.connectionString)
      _ = try connection.execute("CREATE TABLE t (k text PRIMARY KEY, v bytea NOT NULL)")
      // A value that would break string-built SQL, and bytes with a NUL and a newline.
      let key = "a'); DROP TABLE t; --"
      let bytes = Data([0x00, 0x0A, 0xFF, 0x27])
      let insert = try connection.execute(
        "INSERT INTO t (k, v) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [.text(key), .binary(bytes)])
      #expect(insert.affectedRows == 1)
      let again = try connection.execute(
        "INSERT INTO t (k, v) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [.text(key), .binary(bytes)])
      #expect(again.affectedRows == 0)
      let read = try connection.execute(
        "SELECT k, v FROM t WHERE k = $1", [.text(key)], binaryResults: true)
      #expect(read.rows.count == 1)
      #expect(read.rows.first?[0] == Data(key.utf8))
      #expect(read.rows.first?[1] == bytes)
      #expect(connection.isConnected)
    }
  }

  @Test func aFailedStatementSaysWhyAndLeavesTheConnectionUp() async throws {
    try await ThrowawayPostgres.with { server in
      let connection = try PostgresConnection(server.connectionString)
      #expect {
        try connection.execute("SELECT * FROM missing")
      } throws: { error in
        guard let failure = error as? PostgresConnection.Failure else { return false }
        return failure.message.contains("missing") && !failure.isConnectionLost
      }
      #expect(try connection.execute("SELECT 1").rows.count == 1)
    }
  }
}
