// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Unidirectional",
  products: [
    .library(name: "Unidirectional", targets: ["Unidirectional"]),
    .library(name: "UnidirectionalTesting", targets: ["UnidirectionalTesting"]),
    .library(name: "UnidirectionalTerminal", targets: ["UnidirectionalTerminal"]),
    .executable(name: "counter", targets: ["counter"]),
    .executable(name: "tictactoe", targets: ["tictactoe"]),
    .executable(name: "todos", targets: ["todos"]),
    // The game server's library, for the cluster case study (its own package: PostgreSQL).
    .library(name: "TicTacToeServerCore", targets: ["TicTacToeServerCore"]),
    .executable(name: "tictactoe-server", targets: ["tictactoe-server"]),
    .executable(name: "tictactoe-load", targets: ["tictactoe-load"]),
    .executable(name: "unidirectional-benchmarks", targets: ["UnidirectionalBenchmarks"]),
  ],
  targets: [
    .target(name: "Unidirectional"),
    .target(name: "UnidirectionalTesting", dependencies: ["Unidirectional"]),
    .testTarget(
      name: "UnidirectionalTestingTests",
      dependencies: ["UnidirectionalTesting", "UnidirectionalTestSupport"]
    ),
    .testTarget(
      name: "UnidirectionalTests",
      dependencies: ["Unidirectional", "UnidirectionalTestSupport"]
    ),
    // Terminal programs: a REPL bound to a store, colour per stream, action-log options.
    .target(name: "UnidirectionalTerminal", dependencies: ["Unidirectional"]),
    .testTarget(
      name: "UnidirectionalTerminalTests",
      dependencies: [
        "UnidirectionalTerminal", "UnidirectionalTesting", "UnidirectionalTestSupport",
      ]
    ),
    // Helpers shared by the test targets (logs, gates); not a product.
    .target(
      name: "UnidirectionalTestSupport",
      dependencies: ["Unidirectional"],
      path: "Tests/UnidirectionalTestSupport"
    ),

    // A program for the tests of a file-backed shared value across processes (two incrementing
    // one file, one watching, one killed while saving); built with the tests, not a product.
    .executableTarget(
      name: "shared-file-counter",
      dependencies: ["Unidirectional"],
      path: "Tests/SharedFileCounter"
    ),

    // Shared by the case studies: small input helpers (the terminal is UnidirectionalTerminal).
    .target(
      name: "CaseStudySupport",
      dependencies: ["UnidirectionalTerminal"],
      path: "CaseStudies/Shared/Sources/CaseStudySupport"
    ),

    // Case study: Counter.
    .target(
      name: "CounterCore",
      dependencies: ["Unidirectional", "UnidirectionalTerminal", "CaseStudySupport"],
      path: "CaseStudies/Counter/Sources/CounterCore"
    ),
    .executableTarget(
      name: "counter",
      dependencies: ["CounterCore", "UnidirectionalTerminal", "CaseStudySupport"],
      path: "CaseStudies/Counter/Sources/counter"
    ),
    .testTarget(
      name: "CounterCoreTests",
      dependencies: [
        "CounterCore", "UnidirectionalTerminal", "UnidirectionalTesting",
        "UnidirectionalTestSupport",
      ],
      path: "CaseStudies/Counter/Tests/CounterCoreTests"
    ),

    // Case study: TicTacToe.
    .target(
      name: "TicTacToeCore",
      dependencies: ["Unidirectional", "UnidirectionalTerminal", "CaseStudySupport"],
      path: "CaseStudies/TicTacToe/Sources/TicTacToeCore"
    ),
    .executableTarget(
      name: "tictactoe",
      dependencies: ["TicTacToeCore", "UnidirectionalTerminal", "CaseStudySupport"],
      path: "CaseStudies/TicTacToe/Sources/tictactoe"
    ),
    .testTarget(
      name: "TicTacToeCoreTests",
      dependencies: [
        "TicTacToeCore", "UnidirectionalTerminal", "UnidirectionalTesting",
        "UnidirectionalTestSupport",
      ],
      path: "CaseStudies/TicTacToe/Tests/TicTacToeCoreTests"
    ),

    // Case study: the multiplayer TicTacToe server and its load test.
    .target(
      name: "TicTacToeServerCore",
      dependencies: ["Unidirectional", "TicTacToeCore"],
      path: "CaseStudies/TicTacToeServer/Sources/TicTacToeServerCore"
    ),
    .executableTarget(
      name: "tictactoe-server",
      dependencies: ["TicTacToeServerCore", "Unidirectional"],
      path: "CaseStudies/TicTacToeServer/Sources/tictactoe-server"
    ),
    .executableTarget(
      name: "tictactoe-load",
      dependencies: ["TicTacToeServerCore"],
      path: "CaseStudies/TicTacToeServer/Sources/tictactoe-load"
    ),
    .testTarget(
      name: "TicTacToeServerTests",
      dependencies: [
        "TicTacToeServerCore", "TicTacToeCore", "UnidirectionalTesting",
        "UnidirectionalTestSupport",
      ],
      path: "CaseStudies/TicTacToeServer/Tests/TicTacToeServerTests"
    ),

    // Case study: Todos.
    .target(
      name: "TodosCore",
      dependencies: ["Unidirectional", "UnidirectionalTerminal", "CaseStudySupport"],
      path: "CaseStudies/Todos/Sources/TodosCore"
    ),
    .executableTarget(
      name: "todos",
      dependencies: ["TodosCore", "UnidirectionalTerminal", "CaseStudySupport"],
      path: "CaseStudies/Todos/Sources/todos"
    ),
    .testTarget(
      name: "TodosCoreTests",
      dependencies: [
        "TodosCore", "UnidirectionalTerminal", "UnidirectionalTesting", "UnidirectionalTestSupport",
      ],
      path: "CaseStudies/Todos/Tests/TodosCoreTests"
    ),

    // Benchmarks: `swift run -c release unidirectional-benchmarks`.
    .executableTarget(
      name: "UnidirectionalBenchmarks",
      dependencies: ["Unidirectional", "UnidirectionalTesting"],
      path: "Benchmarks/Sources/UnidirectionalBenchmarks"
    ),
  ],
  swiftLanguageModes: [.v6]
)
