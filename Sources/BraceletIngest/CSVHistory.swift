import BraceletDecoder
import BraceletProtocol
import BraceletSummaries

/// A CSV history, the rows `bracelet replay --format csv` writes and `bracelet summarize --csv`
/// reads (``BraceletSummaries/CSVSampleReader``), as the files the ``IngestPipeline`` stores: the
/// same slots and beats `summarize --csv` summarises, so the days recomputed from the store are the
/// days it prints.
///
/// The values are stored as the file gives them, as a capture's are: a physiological value outside
/// the protocol's ranges (heart rate 30-220 bpm, SpO2 0-100 %, ...) is kept as recorded and treated
/// as missing, and counted, by the summaries (``BraceletSummaries/PhysiologicalRanges``), whichever
/// way the row came in. A file carries no transfer, so no transfer progress is recorded.
public enum CSVHistory {
    /// The rows of `input` as files of one device, each at most `slotsPerPiece` slots or
    /// `beatsPerPiece` beats (each file is one transaction of the pipeline).
    ///
    /// - Parameters:
    ///   - serial: the device the rows belong to when the file has no `device` column; when it has
    ///     one, it must name this device.
    ///   - source: the file, for messages.
    /// - Throws: ``IngestError/unusableInput(_:)`` when the device is unknown or the rows belong to
    ///   several devices.
    public static func files(_ input: CSVSampleInput, serial: String?, source: String,
                             slotsPerPiece: Int = IngestPipeline.slotsPerPiece,
                             beatsPerPiece: Int = IngestPipeline.beatsPerPiece) throws(IngestError) -> [VerifiedFile] {
        guard input.devices.count <= 1 else {
            throw .unusableInput("\(source) holds rows of several devices (\(input.devices.joined(separator: ", "))): split it into one file per device (its `device` column) and ingest each")
        }
        let device: String
        switch (input.devices.first, serial) {
        case let (named?, given?) where named != given:
            throw .unusableInput("\(source) names device \(named) in its device column, not \(given): leave out --device, or give --device \(named)")
        case let (named?, _): device = named
        case let (nil, given?): device = given
        case (nil, nil):
            throw .unusableInput("\(source) has no device column: give the bracelet's serial with --device SERIAL, so its rows are stored as that device's")
        }
        let model = input.model.flatMap(DeviceModel.init(name:))
        var files: [VerifiedFile] = []
        for start in stride(from: 0, to: input.slots.count, by: max(1, slotsPerPiece)) {
            files.append(VerifiedFile(serial: device, model: model, slots: Array(input.slots[start..<min(start + slotsPerPiece, input.slots.count)])))
        }
        for start in stride(from: 0, to: input.beats.count, by: max(1, beatsPerPiece)) {
            files.append(VerifiedFile(serial: device, model: model, beats: Array(input.beats[start..<min(start + beatsPerPiece, input.beats.count)])))
        }
        return files
    }
}
