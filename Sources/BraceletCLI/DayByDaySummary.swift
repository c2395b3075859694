import BraceletDecoder
import BraceletIngest
import BraceletStore
import BraceletSummaries
import Foundation

/// `summarize CAPTURE` in flat memory: the capture is read three times, each time a file at a time,
/// and the summary engine holds only the days still open (``DayByDaySummarizer``).
///
/// 1. Metrics only: the sleep sessions (they come from sleep-stage samples, not from beats, and do
///    not depend on the time zone or the other settings).
/// 2. Beats only: the HRV of each session (``SessionHRVCollector``). A capture holds the metrics
///    files and the beats files one after the other, so a day's beats come long after its
///    samples; a pass of their own keeps neither waiting for the other.
/// 3. Metrics again: the days, each printed as soon as it is final, with its session's HRV.
///
/// When the records of a pass are out of time order by more than
/// ``DayByDaySummarizer/disorderToleranceSeconds`` (passes 1 and 2 find out before anything is
/// printed), ``summarize(capture:command:)`` returns false and the caller summarises the capture in
/// memory instead, as before: the result is the same, only the memory is not bounded.
enum DayByDayCaptureSummary {
    /// Summarises the capture at `path` with `command`'s options and prints it; false (nothing
    /// printed) when its records are not in time order.
    static func summarize(capture path: String, command: SummarizeCommand) throws -> Bool {
        let now = Int64(Date().timeIntervalSince1970)
        var slots: [Slot] = []
        slots.reserveCapacity(1024)

        // 1. Sessions.
        var sessions = DayByDaySummarizer(configuration: try SummaryConfiguration(), now: now)
        var windows: [SessionWindow] = []
        func keepWindows(_ day: DayByDaySummarizer.FinishedDay) {
            windows += day.sleepSessions.map { SessionWindow(start: $0.startSession, stop: $0.stopSession) }
            if let night = day.nightWindow { windows.append(night) }
        }
        let replayed = try streamCapture(path, beatsLast: false, metrics: { _, _, batch in
            batch.forEachSlot { slot, _ in slots.append(slot) }
            sessions.add(slots, finished: keepWindows)
            slots.removeAll(keepingCapacity: true)
        }, beats: { _, _, _ in }).capture
        guard !replayed.metricsFiles.isEmpty || !replayed.beatsFiles.isEmpty else {
            throw CLIError("\(path) holds no bracelet file transfer (\(replayed.statistics.attPDUs) ATT PDUs); nothing to summarise", exitCode: 2)
        }
        _ = sessions.finish(finished: keepWindows)
        guard !sessions.outOfOrder else { return false }

        // 2. The HRV of every session.
        var hrv = SessionHRVCollector(windows: windows, now: now)
        _ = try streamCapture(path, beatsLast: false, metrics: { _, _, _ in }, beats: { _, _, batch in hrv.add(batch) })
        guard !hrv.outOfOrder else { return false }
        let (nightlyHRV, droppedBeats) = hrv.finish()

        // 3. The days.
        if replayed.isIncomplete { Log.warning("warning: \(path) is damaged or incomplete; summarising what was recovered (see bracelet replay \(path))") }
        let offset = replayed.metricsFiles.last.map { $0.header.timeZoneOffsetMinutes * 60 }
        let configuration = try command.person.configuration(recordedOffsetSeconds: offset)
        var days = DayByDaySummarizer(configuration: configuration, now: now, sourceOffsetSeconds: offset, nightlyHRV: nightlyHRV)
        let output = try DayByDayOutput(format: command.format, timeZone: SummaryConfiguration.name(of: configuration.timeZone), date: command.day)
        func printDay(_ day: DayByDaySummarizer.FinishedDay) { output.add(day) }
        _ = try streamCapture(path, beatsLast: false, metrics: { _, _, batch in
            batch.forEachSlot { slot, _ in slots.append(slot) }
            days.add(slots, finished: printDay)
            slots.removeAll(keepingCapacity: true)
        }, beats: { _, _, _ in })
        let diagnostics = days.finish(beatTally: droppedBeats, finished: printDay)
        for diagnostic in diagnostics.prefix(20) { Log.info("note: \(diagnostic)") }
        if diagnostics.count > 20 { Log.info("note: \(diagnostics.count - 20) more diagnostics not shown") }
        guard !days.outOfOrder, !days.missingNightlyHRV else {
            throw CLIError("the capture read differently on its third pass than on its first two (was \(path) changed meanwhile?); run the command again")
        }
        if let day = command.day, output.dayCount == 0 { throw CLIError("no data on \(day) in \(path)", exitCode: 2) }
        try output.finish()
        return true
    }
}

/// One stored day read and laid out as ``DayByDayOutput/addStored(_:)``'s second core lays it out,
/// into buffers kept from one day to the next.
private final class LaidOutDay: @unchecked Sendable {
    // Unchecked: one thread uses it at a time, handed over by Background (the worker lays a day
    // out, the caller reads the bytes after waiting for it, then starts the next day's worker).
    private(set) var bytes: [UInt8] = []
    private let reader = StoredSummaryDocument.DayReader()

    /// Reads `day` (checked as ``StoredSummaryDocument/DayReader`` checks it) and lays out `,` and
    /// the day at the days' depth (2) into ``bytes``, replacing what was there.
    func lay(out day: PackedSummary) throws {
        bytes.removeAll(keepingCapacity: true)
        let json = try reader.read(day)
        let writer = CanonicalJSON.PrettyWriter(blockSize: 1 << 16, depth: 2) { self.bytes.append(contentsOf: $0) }
        writer.write([UInt8(ascii: ",")])
        writer.write(json.bindMemory(to: UInt8.self))
        writer.flush()
    }
}

/// Prints a summary document a day at a time, in the bytes `summarize` prints for the whole
/// ``SummaryDocument``: JSON laid out by ``CanonicalJSON/PrettyWriter`` (the days as they come,
/// the sleep sessions after them), or the table. Only the sleep sessions are held until the end
/// (a few kB a night, in a ``SessionSpool``). With a date, only that day and its sessions are
/// kept, and nothing is printed until the end.
final class DayByDayOutput {
    private let format: SummaryFormat
    private let timeZone: String
    private let date: String?
    private let output: TextOutput
    private var json: CanonicalJSON.PrettyWriter?
    private let sessions = SessionSpool()
    private var sessionRows: [String] = []
    private var held: [DayByDaySummarizer.FinishedDay] = []
    private var encodingError: (any Error)?
    /// Days printed (or held, with a date).
    private(set) var dayCount = 0

    init(format: SummaryFormat, timeZone: String, date: String?) throws {
        self.format = format
        self.timeZone = timeZone
        self.date = date
        output = try TextOutput(path: nil)
    }

    /// Prints (or, with a date, holds) a finished day.
    func add(_ day: DayByDaySummarizer.FinishedDay) {
        if let date {
            guard day.summary.date == date else { return }
            held.append(day)
            dayCount += 1
            return
        }
        write(day)
    }

    /// Prints a day given as canonical JSON (JSON format only).
    private func addCanonical(day: UnsafeRawBufferPointer) {
        let writer = jsonWriter()
        writer.write(dayCount == 0 ? Self.daysOpen : [UInt8(ascii: ",")])
        writer.write(day.bindMemory(to: UInt8.self))
        dayCount += 1
    }

    /// Prints the days and sleep sessions of a stored document (JSON format only, before anything
    /// else), each day read, checked and laid out as it is printed. The work, reading and layout,
    /// is shared with a second core: every second day is read and laid out there into memory while
    /// this thread reads, lays out and prints the day before it, so memory holds one day in each
    /// form per core (buffers kept from day to day), not the month.
    ///
    /// A day that fails its check stops the output there with the error: the days before it are
    /// printed, the document is not completed, and the command fails.
    func addStored(_ document: StoredSummaryDocument) throws {
        let days = document.days
        let reader = StoredSummaryDocument.DayReader()
        let layout = days.count >= 2 ? LaidOutDay() : nil
        var index = 0
        while index < days.count {
            // The next day after a comma at the days' depth (2), as this thread's writer lays it out.
            let next = index + 1 < days.count ? days[index + 1] : nil
            let done = next.flatMap { day in layout.map { layout in Background<Void> { try layout.lay(out: day) } } }
            // The worker is waited for before an error of this thread's day goes up: it uses `layout`.
            let mine = Result { try reader.read(days[index]) }
            let theirs = done.map { done in Result { try done.value() } }
            addCanonical(day: try mine.get())
            if let theirs, let layout {
                try theirs.get()
                jsonWriter().flush()
                layout.bytes.withUnsafeBytes { output.write(raw: $0) }
                dayCount += 1
            }
            index += 2
        }
        for session in document.sleepSessions { session.json.withUnsafeBytes { sessions.append($0) } }
    }

    private func write(_ day: DayByDaySummarizer.FinishedDay) {
        switch format {
        case .json:
            let writer = jsonWriter()
            writer.write(dayCount == 0 ? Self.daysOpen : [UInt8(ascii: ",")])
            do {
                writer.write(try CanonicalJSON.bytes(of: day.summary, what: "the summary of \(day.summary.date)"))
                for session in day.sleepSessions {
                    sessions.append(try CanonicalJSON.bytes(of: session, what: "the sleep session of \(session.recordDate)"))
                }
            } catch { encodingError = encodingError ?? error }
        case .table:
            if dayCount == 0 { output.write(SummaryTableRenderer.daysHeader(timeZone: timeZone) + "\n") }
            output.write(SummaryTableRenderer.dayRow(day.summary) + "\n")
            let zone = SummaryTableRenderer.zone(timeZone)
            sessionRows += day.sleepSessions.map { SummaryTableRenderer.sessionRow($0, zone: zone) }
        }
        dayCount += 1
    }

    /// Prints the held day (with a date), the sleep sessions and the end of the document.
    func finish() throws {
        if date != nil {
            let days = held
            dayCount = 0
            for day in days { write(day) }
        }
        if let encodingError { throw CLIError("\(encodingError)") }
        switch format {
        case .json:
            let writer = jsonWriter()
            if dayCount == 0 { writer.write(Self.daysOpen) }
            writer.write(Array(#"],"sleepSessions":["#.utf8))
            try sessions.forEachBlock { writer.write($0) }
            var end = Array(#"],"timeZone":"#.utf8)
            CanonicalJSON.appendString(timeZone, to: &end)
            end.append(UInt8(ascii: "}"))
            writer.write(end)
            writer.finish()
            output.write("\n")
        case .table:
            if dayCount == 0 { output.write(SummaryTableRenderer.daysHeader(timeZone: timeZone) + "\n") }
            output.write(SummaryTableRenderer.sessionsHeader + "\n")
            for row in sessionRows { output.write(row + "\n") }
            output.write("\n")
        }
        try output.flush()
    }

    private func jsonWriter() -> CanonicalJSON.PrettyWriter {
        if let json { return json }
        let output = output
        let made = CanonicalJSON.PrettyWriter { output.write(raw: $0) }
        json = made
        return made
    }

    private static let daysOpen = Array(#"{"days":["#.utf8)
}
