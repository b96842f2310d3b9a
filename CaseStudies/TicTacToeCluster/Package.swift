// swift-tools-version: 6.0
import PackageDescription

// Its own package so the root package's `swift build` and `swift test` never need PostgreSQL.
let package = Package(
  name: "TicTacToeCluster",
  products: [
    .library(name: "PostgresActionLog", targets: ["PostgresActionLog"]),
    .executable(name: "tictactoe-pg-server", targets: ["tictactoe-pg-server"]),
    .executable(name: "tictactoe-cluster-shard", targets: ["tictactoe-cluster-shard"]),
  ],
  dependencies: [
    .package(name: "Unidirectional", path: "../..")
  ],
  targets: [
    // libpq, the C client maintained with PostgreSQL (Debian `libpq-dev`); never a client of ours.
    .systemLibrary(
      name: "CLibPQ",
      path: "Sources/CLibPQ",
      pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"])]
    ),
    .target(
      name: "PostgresActionLog",
      dependencies: [
        "CLibPQ",
        .product(name: "Unidirectional", package: "Unidirectional"),
      ]
    ),
    // The TicTacToe server with its journal in PostgreSQL.
    .executableTarget(
      name: "tictactoe-pg-server",
      dependencies: [
        "PostgresActionLog",
        .product(name: "TicTacToeServerCore", package: "Unidirectional"),
        .product(name: "Unidirectional", package: "Unidirectional"),
      ]
    ),
    // A shard of the cluster: the partitions it leases, each with a fenced journal.
    .executableTarget(
      name: "tictactoe-cluster-shard",
      dependencies: [
        "PostgresActionLog",
        .product(name: "TicTacToeServerCore", package: "Unidirectional"),
        .product(name: "Unidirectional", package: "Unidirectional"),
      ]
    ),
    // Against a throwaway PostgreSQL each (initdb, pg_ctl on a free loopback port).
    // The server's tests start the real `tictactoe-pg-server`, built beside the test bundle.
    .testTarget(
      name: "PostgresActionLogTests",
      dependencies: [
        "PostgresActionLog",
        .product(name: "TicTacToeServerCore", package: "Unidirectional"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
