import BraceletStore

/// Why the ingest pipeline could not store something.
public enum IngestError: Error, Sendable, CustomStringConvertible {
    /// A transferred file did not decode cleanly; it was not stored and must not be erased.
    case damagedFile(kind: String, serial: String, detail: String)
    /// The database refused the write; nothing of the batch was stored.
    case store(StoreError)
    /// The settings given disagree with the device's participant record (or it cannot be used);
    /// nothing of the batch was stored. The text says how to change the record.
    case participant(String)
    /// An input cannot be stored as it is (a CSV history without a device, or of several); nothing
    /// of it was stored. The text says what to do.
    case unusableInput(String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .damagedFile(kind, serial, detail):
            return "\(kind) file of \(serial) is damaged (\(detail)); it was not stored, so it stays on the bracelet. Sync again to fetch it anew."
        case let .store(error):
            return "\(error)"
        case let .participant(text), let .unusableInput(text):
            return text
        }
    }
}
