import Foundation
import Testing
import UnidirectionalTestSupport

/// Runs the built `tictactoe` executable end to end, as a user piping a session would.
@Suite struct TicTacToeProgramTests {
  static func run(_ lines: [String], arguments: [String] = []) throws -> Program.Output {
    let input = lines.map { $0 + "\n" }.joined()
    return try Program.run("tictactoe", input: Data(input.utf8), arguments: arguments)
  }

  /// Output without the boards' lines, which are checked separately.
  static func messages(_ output: String) -> [Substring] {
    output.split(separator: "\n").filter {
      !($0.hasPrefix("    a   b   c") || $0.hasPrefix("   ---") || $0.first?.isNumber == true)
    }
  }

  @Test func aFullSession() throws {
    let output = try Self.run([
      "email blob2fa@example.com", "password password", "login", "code 1234", "submit",
      "x Ann", "o Bob", "start",
      // O wins down column b.
      "a1", "b1", "a2", "b2", "c3", "b3",
      "again",
      // A tie.
      "a1", "b1", "c1", "b2", "a2", "c2", "b3", "a3", "c3",
      "leave", "logout",
    ])
    #expect(output.status == 0)
    #expect(output.standardError.isEmpty)
    #expect(
      Self.messages(output.standardOutput) == [
        "== Log in ==",
        "commands: email ADDRESS, password SECRET, login, help, quit",
        "email set to 'blob2fa@example.com'; now type 'password SECRET' (or 'password' alone, "
          + "to type it unseen)",
        "email and password set; ready: type 'login'",
        "logging in…",
        "== Two-factor authentication ==",
        "commands: code DIGITS, submit, back, help, quit",
        "code set; type 'submit' to check it",
        "checking the code…",
        "== New game ==",
        "commands: x NAME, o NAME, start, logout, help, quit",
        "ready: type 'start'",
        "== Game ==",
        "commands: a move such as b2 (column a-c, row 1-3), again, leave, help, quit",
        "X (Ann) to move", "O (Bob) to move", "X (Ann) to move", "O (Bob) to move",
        "X (Ann) to move", "O (Bob) to move",
        "O (Bob) wins! Type 'again' to play again or 'leave' to leave the game.",
        "X (Ann) to move", "O (Bob) to move", "X (Ann) to move", "O (Bob) to move",
        "X (Ann) to move", "O (Bob) to move", "X (Ann) to move", "O (Bob) to move",
        "X (Ann) to move",
        "It's a tie. Type 'again' to play again or 'leave' to leave the game.",
        "== New game ==",
        "commands: x NAME, o NAME, start, logout, help, quit",
        "== Log in ==",
        "commands: email ADDRESS, password SECRET, login, help, quit",
      ])
    // The board after O's win, as drawn.
    #expect(
      output.standardOutput.contains(
        """
            a   b   c
        1   X | O |
           ---+---+---
        2   X | O |
           ---+---+---
        3     | O | X
        O (Bob) wins!
        """))
  }

  /// `email …`, `password …` and `code …` are each acknowledged with what comes next: the
  /// form is sent by `login`, the code checked by `submit`, and nothing else happens until then.
  @Test func eachFieldTypedIsAcknowledgedWithWhatComesNext() throws {
    let output = try Self.run([
      "password password", "email blob2fa@example.com", "email blob2fa@example.org", "login",
      "code 1234",
    ])
    #expect(output.status == 0)
    #expect(output.standardError.isEmpty)
    #expect(
      Self.messages(output.standardOutput).dropFirst(2).prefix(6) == [
        "password set; now type 'email ADDRESS'",
        "email and password set; ready: type 'login'",
        "email and password set; ready: type 'login'",
        "logging in…",
        "== Two-factor authentication ==",
        "commands: code DIGITS, submit, back, help, quit",
      ])
    #expect(Self.messages(output.standardOutput).last == "code set; type 'submit' to check it")
  }

  @Test func badInputGetsOneErrorLineEachAndNothingChanges() throws {
    var input = Data("dance\nlogin\nemail a@b.c\npassword nope\nlogin\n".utf8)
    input.append(contentsOf: [0xFF, 0xFE, 0x0A])  // Not UTF-8.
    input.append(Data(String(repeating: "y", count: 50_000).utf8))
    input.append(Data("\n".utf8))
    let output = try Program.run("tictactoe", input: input)
    // A script with refused lines exits with status 1 (like sqlite3), after running the rest.
    #expect(output.status == 1)
    let errors = output.standardError.split(separator: "\n")
    #expect(errors.count == 4)
    #expect(
      errors[0]
        == "error: unknown command 'dance'; valid here: email ADDRESS, password SECRET, login, help, quit"
    )
    #expect(errors[1] == "error: set an email and a password first ('email …', 'password …')")
    #expect(errors[2].hasPrefix("error: unknown command '\u{FFFD}"))
    #expect(errors[3].hasPrefix("error: unknown command 'yyyy"))
    #expect(output.standardOutput.contains("login failed: Wrong email or password."))
  }

  /// An escape sequence in a player's name would be played back to the terminal with the board:
  /// a line with a control character is refused whole on every screen, quoted escaped.
  @Test func linesWithControlCharactersAreRefusedQuotedEscaped() throws {
    let output = try Self.run([
      "email b\u{7}lob@example.com", "email a@b.c", "password password", "login",
      "x \u{1B}[2JAnn", "o Bob\u{9B}", "x Ann", "o Bob", "start", "b2\u{1B}[A", "b2",
    ])
    #expect(output.status == 1)
    #expect(
      output.standardError == #"""
        error: the line 'email b\u{07}lob@example.com' contains a control character (\u{07}); type plain text
        error: the line 'x \u{1B}[2JAnn' contains a control character (\u{1B}); type plain text
        error: the line 'o Bob\u{9B}' contains a control character (\u{9B}); type plain text
        error: the line 'b2\u{1B}[A' contains a control character (\u{1B}); type plain text

        """#)
    #expect(output.standardOutput.contains("O (Bob) to move"))
    #expect(!output.standardOutput.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" })
  }

  /// `password` alone reads the password from the next line; from a script too. An empty one is
  /// refused.
  @Test func passwordAloneReadsTheNextLine() throws {
    let output = try Self.run([
      "email a@b.c", "password", "", "password", "password", "login", "x Ann",
    ])
    #expect(output.status == 1)
    #expect(
      output.standardError == "error: the password is empty; type 'password' to try again\n")
    #expect(output.standardOutput.contains("== New game =="))
  }

  #if canImport(Glibc)
    /// At a terminal, `password` alone asks for the password and does not show it as it is
    /// typed; the terminal shows what is typed again afterwards.
    @Test(.timeLimit(.minutes(1))) func aPasswordTypedAtATerminalIsNotShown() throws {
      let session = try TerminalSession(
        "tictactoe", environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"])
      #expect(session.read(until: "tictactoe> "))
      session.type("password\n")
      #expect(session.read(until: "password: "))
      session.type("hunter2\n")
      // Text typed before the echo is back on would not show: wait for the next prompt.
      #expect(session.read { $0.components(separatedBy: "tictactoe> ").count == 3 })
      session.type("email a@b.c\n")
      #expect(session.read(until: "ready: type 'login'"))
      session.type("quit\n")
      #expect(session.exitStatus() == 0)
      #expect(!session.shown.contains("hunter2"))
      // Typed text shows again after the password.
      #expect(session.shown.contains("email a@b.c"))
    }

    /// Ctrl-C while a password is being typed ends the program, and the terminal shows what is
    /// typed again (a shell left without echo is hard to use).
    @Test(.timeLimit(.minutes(1))) func interruptWhileAPasswordIsTypedTurnsTheEchoBackOn() throws {
      let session = try TerminalSession(
        "tictactoe", environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"])
      #expect(session.read(until: "tictactoe> "))
      session.type("password\n")
      #expect(session.read(until: "password: "))
      #expect(!session.echoes)
      session.process.interrupt()
      #expect(session.exitStatus() == SIGINT)
      #expect(session.echoes)
    }
  #endif

  /// `quit` leaves the program from every screen, a game included; `leave` goes back from a
  /// game to the new-game screen.
  @Test func quitLeavesTheProgramFromAGameAndLeaveGoesBack() throws {
    let login = ["email a@b.c", "password password", "login", "x Ann", "o Bob", "start"]
    let quit = try Self.run(login + ["quit", "logout"])
    #expect(quit.status == 0)
    #expect(quit.standardError.isEmpty)
    // The output ends in the game: nothing after `quit` was read.
    #expect(
      Self.messages(quit.standardOutput).suffix(3) == [
        "== Game ==",
        "commands: a move such as b2 (column a-c, row 1-3), again, leave, help, quit",
        "X (Ann) to move",
      ])

    let leave = try Self.run(login + ["leave", "logout"])
    #expect(leave.status == 0)
    #expect(
      Self.messages(leave.standardOutput).suffix(6) == [
        "commands: a move such as b2 (column a-c, row 1-3), again, leave, help, quit",
        "X (Ann) to move",
        "== New game ==",
        "commands: x NAME, o NAME, start, logout, help, quit",
        "== Log in ==",
        "commands: email ADDRESS, password SECRET, login, help, quit",
      ])
  }

  /// Input is checked when typed: a bad email or code is refused at once, naming what is
  /// wrong, and a script with refused lines exits with status 1.
  @Test func badEmailsAndCodesAreRefusedWhenTyped() throws {
    let output = try Self.run([
      "email notanemail", "email blob2fa@example.com", "password password", "login",
      "code abcd", "code 1234", "submit",
    ])
    #expect(output.status == 1)
    #expect(
      output.standardError == """
        error: 'notanemail' is not an email address: it has no '@'; use the form NAME@DOMAIN, \
        e.g. 'email blob@example.com'
        error: 'abcd' is not a code: 'a' is not a digit; a code is 4 to 8 digits, e.g. 'code 1234'

        """)
    #expect(output.standardOutput.contains("== New game =="))
  }

  @Test func usage() throws {
    let output = try Self.run([], arguments: ["--help"])
    #expect(output.status == 0)
    #expect(output.standardOutput.hasPrefix("usage: tictactoe"))
    #expect(try Self.run([], arguments: ["-x"]).status == 2)
  }
}

/// TicTacToe at a terminal: a prompt, `help`, and colour unless `NO_COLOR` is set.
@Suite struct TicTacToeTerminalTests {
  @Test func promptsHelpsAndColoursAtATerminal() throws {
    let output = try Program.runInTerminal(
      "tictactoe", input: "help\nquit\n", environment: ["TERM": "xterm"])
    #expect(output.contains("tictactoe> "))
    #expect(output.contains("\u{1B}[1m== Log in ==\u{1B}[0m"))
    #expect(output.contains("password SECRET  set the password"))
  }

  @Test func noColourWhenNoColorIsSet() throws {
    let output = try Program.runInTerminal(
      "tictactoe", input: "quit\n", environment: ["TERM": "xterm", "NO_COLOR": "1"])
    #expect(output.contains("== Log in =="))
    #expect(!output.contains("\u{1B}["))
  }
}
