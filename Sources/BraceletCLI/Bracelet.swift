import ArgumentParser

/// The `bracelet` command: one subcommand per job a user runs.
@main
struct Bracelet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bracelet",
        abstract: "Talk to V1 and V2 wrist bracelets, decode what they record, and forward summaries.",
        discussion: """
            Start with `bracelet replay captures/v1-day.btsnoop` to see what a bracelet records, then \
            `bracelet summarize` for daily and nightly summaries.
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
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the version of bracelet.")
    func run() { print(Bracelet.configuration.version) }
}
