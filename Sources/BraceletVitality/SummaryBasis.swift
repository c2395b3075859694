import BraceletSummaries

extension SummaryConfiguration {
    /// Every setting a daily summary depends on, as one text: stored with each summary
    /// (``BraceletStore/SummaryStamp/basis``) so a reader serves a stored summary only when it asks
    /// for the same settings. Equal text means equal summaries from equal samples; the maximum heart
    /// rate stands for age, measured maximum and formula (the zones depend on nothing else).
    public var summaryBasis: String {
        "tz=\(timeZone.identifier);slot=\(summarySlotSeconds);quality=\(qualityThreshold);hrmax=\(effectiveMaxHeartRate);"
            + "height=\(heightCm);goal=\(stepGoal)"
    }
}
