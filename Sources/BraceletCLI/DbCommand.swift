import ArgumentParser
import BraceletStore

/// `bracelet db`: look after the database file itself.
struct DbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Check the database for damage, or copy it into a consistent backup.",
        subcommands: [DbCheckCommand.self, DbBackupCommand.self]
    )
}

/// `bracelet db check`: the checksum of every page, SQLite's structure check, the row checks of slots
/// and beats, and the content hashes of stored summaries and outbox payloads.
struct DbCheckCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the database: the checksum of every page, page structure, every slot and beat, and the content hash of every stored summary and outbox entry.",
        discussion: """
            Opens the file read-only and changes nothing. Pages another SQLite program put into the file \
            (the sqlite3 shell closing last copies bracelet's write-ahead log into it; a write without \
            -readonly) carry no checksum: they are verified with SQLite's integrity check and bracelet's \
            row checks and content hashes, reported, and sealed again by the next bracelet command that \
            writes. Exit status: 0 when no damage was found, 3 when some was, or when rows another \
            program changed no longer match what bracelet wrote (each finding is printed, with what to \
            do), 1 when the file cannot be opened.
            """
    )

    @Option(help: "The bracelet database.")
    var db: String

    @Flag(help: "Run SQLite's full integrity_check (also compares every index with its table) instead of quick_check.")
    var full = false

    @OptionGroup var log: LogOptions

    func run() throws {
        let store: Store
        do { store = try openStore(db, mustExist: true) } catch {
            // A damaged page the open reads (the first page, the schema) stops the open itself; the
            // page scan still lists every damaged page.
            if let pages = try? Store.pageFindings(path: db), pages.contains(where: { $0.problem.contains("do not match their checksum") }) {
                try report(pages)
            }
            // An older file is checked before its upgrade, and refused as corrupt when damaged.
            if case StoreError.corrupt(_, let detail)? = (error as? CLIError)?.cause {
                try report([IntegrityFinding(area: "structure", problem: detail)])
            }
            throw error
        }
        let findings: [IntegrityFinding]
        do { findings = try store.integrityFindings(full: full) } catch { throw CLIError("\(db): \(error)") }
        guard !findings.isEmpty else {
            // Pages another SQLite program put into the file: the checks above passed over them.
            if var outside = try? store.outsideWrites() {
                outside.verified = true
                print("\(db): \(outside.written ? "written from outside" : "copied by another program"): \(outside)")
            }
            print("\(db): no damage found (page checksums, \(full ? "integrity_check" : "quick_check"), row checks of slots and beats, content hashes of summaries and outbox)")
            return
        }
        try report(findings)
    }

    /// Prints each finding and what to do, then ends with exit status 3.
    private func report(_ findings: [IntegrityFinding]) throws -> Never {
        if findings.allSatisfy({ $0.area == "outside" }) {
            for finding in findings { print("\(db): written from outside: \(finding.problem)") }
            Log.error("""
                \(db) was changed by another program: summarize, score, sync and ingest refuse rows that no \
                longer match what bracelet wrote. If the change was not meant, restore the latest backup \
                (`bracelet db backup` makes one) or re-ingest the captures into a new database; read the file \
                with `sqlite3 -readonly` so that nothing is written.
                """)
            throw ExitCode(3)
        }
        for finding in findings { print("\(db): damaged: \(finding)") }
        Log.error("""
            \(db) is damaged: summarize, score, sync and ingest refuse it. Keep this file, then restore the \
            latest backup (`bracelet db backup` makes one), or re-ingest the captures into a new database; \
            `sqlite3 \(db) .recover` salvages what SQLite can still read.
            """)
        throw ExitCode(3)
    }
}

/// `bracelet db backup`: a consistent copy of a database in use.
struct DbBackupCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database into a new file, consistent even while sync or ingest write to it.",
        discussion: """
            Uses SQLite's online backup inside one read transaction, so the copy holds exactly the committed \
            state at its start; writers are not blocked. Every page is verified against its checksum as it \
            is copied, and the copy is checked like `bracelet db check` before the command succeeds. The \
            destination must not exist; a failed copy is removed.
            """
    )

    @Option(help: "The bracelet database.")
    var db: String

    @Option(help: "The new backup file.")
    var to: String

    @OptionGroup var log: LogOptions

    func run() throws {
        let store = try openStore(db, mustExist: true)
        do {
            try store.requireIntactForDelivery()
            try store.backup(to: to)
        } catch { throw CLIError("\(error)") }
        let copy = try openStore(to, mustExist: true)
        let findings: [IntegrityFinding]
        do { findings = try copy.integrityFindings(full: false) } catch { throw CLIError("\(to): \(error)") }
        guard findings.isEmpty else {
            throw CLIError("the backup \(to) failed its check (\(findings.map(\.description).joined(separator: "; "))); run `bracelet db check --db \(db)`", exitCode: 3)
        }
        print("backed up \(db) to \(to) (checked)")
    }
}
