import BraceletTransport

/// Where a long piece of work stands (a sync, an ingest, a recompute), reported by the library as
/// it goes so that a command can show signs of life; the library prints nothing. Each value is the
/// whole state of its phase, so a reader that drops some still shows the truth with the next.
public enum WorkProgress: Sendable {
    /// Connecting to the bracelet (attempt from 1).
    case connecting(attempt: Int)
    /// Connected: reading the bracelet's details and asking what it holds.
    case askingBracelet
    /// Transferring the bracelet's backlog (files, bytes, rate and time left; see ``BraceletTransport/BacklogProgress``).
    case transferring(BacklogProgress)
    /// Reading a file into the store: `done` of `total` (in `unit`).
    case storing(file: String, done: Int, total: Int, unit: Unit)
    /// Recomputing the summaries of stored days: `done` of `total` days.
    case recomputing(done: Int, total: Int)

    /// What a ``storing(file:done:total:unit:)`` counts.
    public enum Unit: Sendable {
        /// Bytes of the file read.
        case bytes
        /// Rows of the file stored.
        case rows
    }
}
