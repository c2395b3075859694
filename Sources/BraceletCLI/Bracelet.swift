import ArgumentParser

/// The `bracelet` command: one subcommand per job a user runs.
@main
struct Bracelet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bracelet",
        abstract: "Talk to V1 and V2 wrist bracelets, decode what they record, and forward summaries.",
        discussion: """
            Start with a bracelet nearby: find it, sync it into a database, see its days:
              bracelet scan
              bracelet listen --device ADDR --db bracelet.db --exit-after-sync
              bracelet summarize --db bracelet.db --format table

            Without a bracelet, the recordings the package installs show the same:
              bracelet summarize /usr/share/bracelet/captures/v2-three-days.btsnoop \\
                --format table

            Every command has --help, and a man page when installed (man bracelet-listen).
            """,
        version: "0.1.0",
        subcommands: [
            // One line per subcommand; each lives in its own file in this folder.
            ScanCommand.self,
            ListenCommand.self,
            GatewayCommand.self,
            UnpairCommand.self,
            ReplayCommand.self,
            SummarizeCommand.self,
            HRVCommand.self,
            IngestCommand.self,
            RecomputeCommand.self,
            PersonCommand.self,
            SyncCommand.self,
            ScoreCommand.self,
            FleetCommand.self,
            DbCommand.self,
            ExportCommand.self,
            ReportCommand.self,
            SimulateCommand.self,
            BenchCommand.self,
            VersionCommand.self,
        ]
    )
}

/// Prints the version of this tool.
struct VersionCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the version of bracelet.")
    @OptionGroup var log: LogOptions

    func run() { print(Bracelet.configuration.version) }
}
