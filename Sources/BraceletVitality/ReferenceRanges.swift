/// The age-banded reference curves the scoring engine uses. Every anchor and its source is
/// documented in `BraceletVitality.docc/Scoring.md`; change both together.
public enum ReferenceRanges {
    /// Ages the ranges are documented for (adult guidelines only).
    public static let supportedAges = 18...120

    typealias P = ReferenceCurve.Point

    /// The curve for one metric at one age. `hrvType` selects the SDNN or RMSSD table (nil = SDNN,
    /// the meaning of a value without a type in the ROOK implementation requirements).
    public static func curve(for field: VitalityField, age: Int, hrvType: HRVType?) -> ReferenceCurve {
        switch field {
        case .sleepDurationHours:
            // NSF (Hirshkowitz 2015): recommended / may be appropriate; AASM-SRS (Watson 2015): >= 7 h.
            let (band, recommended, appropriate): (String, ClosedRange<Double>, ClosedRange<Double>) =
                age <= 25 ? ("18-25 y", 7...9, 6...11) : age <= 64 ? ("26-64 y", 7...9, 6...10) : ("65+ y", 7...8, 5...9)
            return ReferenceCurve([
                P(appropriate.lowerBound - 2, 0), P(appropriate.lowerBound, 50),
                P(recommended.lowerBound, 100), P(recommended.upperBound, 100),
                P(appropriate.upperBound, 50), P(appropriate.upperBound + 2, 0),
            ], ageBand: band, source: "NSF 2015 (Hirshkowitz), AASM/SRS 2015 (Watson)")
        case .restorativeSleepPercent:
            // Deep (N3) + REM share declines with age (Ohayon 2004 meta-analysis).
            let (band, full, half): (String, Double, Double) =
                age <= 39 ? ("18-39 y", 40, 25) : age <= 59 ? ("40-59 y", 35, 22) : ("60+ y", 30, 20)
            return ReferenceCurve([P(10, 0), P(half, 50), P(full, 100)], ageBand: band, source: "Ohayon 2004")
        case .sleepEfficiencyPercent:
            // NSF sleep quality (Ohayon 2017): >= 85 % good at every age.
            let (band, poor): (String, Double) = age <= 64 ? ("18-64 y", 74) : ("65+ y", 64)
            return ReferenceCurve([P(poor - 10, 0), P(poor, 40), P(85, 100)], ageBand: band, source: "NSF 2017 (Ohayon)")
        case .awakePercent:
            // NSF sleep quality (Ohayon 2017): wake after sleep onset <= 20 min good; expressed as a
            // share of 8 h in bed. More wake with age (Ohayon 2004).
            let (band, good, mid, zero): (String, Double, Double, Double) =
                age <= 64 ? ("18-64 y", 5, 10, 20) : ("65+ y", 7, 13, 25)
            return ReferenceCurve([P(good, 100), P(mid, 60), P(zero, 0)], ageBand: band,
                                  source: "NSF 2017 (Ohayon), Ohayon 2004")
        case .movementMinutes:
            // WHO 2020 (Bull): 150-300 min/week moderate activity for 18-64 and 65+ alike.
            let band = age <= 64 ? "18-64 y" : "65+ y"
            return ReferenceCurve([P(0, 0), P(150.0 / 7, 70), P(300.0 / 7, 100)], ageBand: band, source: "WHO 2020 (Bull)")
        case .steps:
            // Paluch 2022: mortality levels off at 8000-10000 steps/day below 60 y, 6000-8000 from 60 y.
            if age < 60 {
                return ReferenceCurve([P(0, 0), P(3500, 30), P(5800, 70), P(8000, 90), P(10000, 100)],
                                      ageBand: "18-59 y", source: "Paluch 2022")
            }
            return ReferenceCurve([P(0, 0), P(3500, 40), P(6000, 90), P(8000, 100)], ageBand: "60+ y", source: "Paluch 2022")
        case .activeCalories:
            // ACSM (Garber 2011): >= 1000 kcal/week; Paffenbarger 1986: benefit up to ~2000 kcal/week.
            let band = age <= 64 ? "18-64 y" : "65+ y"
            return ReferenceCurve([P(0, 0), P(1000.0 / 7, 60), P(2000.0 / 7, 100)], ageBand: band,
                                  source: "ACSM 2011 (Garber), Paffenbarger 1986")
        case .hrvMs:
            let (band, reference) = hrvReference(age: age, type: hrvType ?? .sdnn)
            return ReferenceCurve([P(0.4 * reference, 0), P(0.7 * reference, 50), P(reference, 80), P(1.5 * reference, 100)],
                                  ageBand: band + " " + (hrvType ?? .sdnn).rawValue,
                                  source: "Nunan 2010, Voss 2012, Shaffer & Ginsberg 2017")
        case .restingHeartRate:
            // Normal 60-100 bpm (AHA); mortality risk rises with RHR (Zhang 2016, Jensen 2013).
            let band = age <= 64 ? "18-64 y" : "65+ y"
            return ReferenceCurve([P(30, 60), P(40, 100), P(60, 100), P(70, 85), P(80, 60), P(90, 30), P(100, 0)],
                                  ageBand: band, source: "AHA, Zhang 2016, Jensen 2013")
        case .breathingRate:
            // Adult resting breathing rate 12-20 /min; no robust age-specific norm, same for all adults.
            return ReferenceCurve([P(6, 0), P(10, 60), P(12, 100), P(20, 100), P(24, 60), P(30, 0)],
                                  ageBand: "18+ y", source: "adult resting norm 12-20 /min")
        }
    }

    /// The age band label and the reference value (score 80) for HRV in ms.
    static func hrvReference(age: Int, type: HRVType) -> (String, Double) {
        let bands: [(ClosedRange<Int>, String, sdnn: Double, rmssd: Double)] = [
            (18...29, "18-29 y", 55, 45), (30...39, "30-39 y", 50, 38), (40...49, "40-49 y", 45, 32),
            (50...59, "50-59 y", 40, 26), (60...69, "60-69 y", 35, 22), (70...120, "70+ y", 32, 20),
        ]
        let band = bands.first { $0.0.contains(age) } ?? bands[bands.count - 1]
        return (band.1, type == .sdnn ? band.sdnn : band.rmssd)
    }

    /// Weight of each metric inside its pillar; renormalised over the metrics present.
    public static func weight(of field: VitalityField) -> Double {
        switch field {
        case .sleepDurationHours: 0.40
        case .sleepEfficiencyPercent: 0.25
        case .restorativeSleepPercent: 0.20
        case .awakePercent: 0.15
        case .movementMinutes: 0.40
        case .steps: 0.40
        case .activeCalories: 0.20
        case .hrvMs: 0.40
        case .restingHeartRate: 0.40
        case .breathingRate: 0.20
        }
    }
}
