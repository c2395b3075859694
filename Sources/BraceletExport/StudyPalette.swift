import BraceletVitality

/// The colours of the study page, each with what it means (the legend is made from this list) and
/// its text colour, chosen by ``Contrast`` so every number stays readable at WCAG AA.
///
/// The worn share of a day is one blue ramp, light to dark: a single hue reads the same for every
/// colour-vision deficiency, and the number in each cell carries the value. A recorded day never
/// worn is the ramp's opposite, orange, the pair colour-blind readers tell apart best; a missing
/// day is grey with a dash. Colour is never the only carrier: each state also has its mark.
package enum StudyPalette {
    /// One colour of the page.
    package struct Swatch: Sendable {
        /// The CSS class that draws it.
        package let cssClass: String
        /// Its background, `#rrggbb`.
        package let background: String
        /// What it means, for the legend.
        package let meaning: String
        /// The text drawn on it.
        package var text: String { Contrast.text(on: background) }
    }

    /// The worn share bins, from the most worn: a day is drawn with the first whose minimum it reaches.
    package static let worn: [(minimum: Double, swatch: Swatch)] = [
        (0.9, Swatch(cssClass: "w4", background: "#08519c", meaning: "worn 90 % of the day or more")),
        (0.75, Swatch(cssClass: "w3", background: "#2171b5", meaning: "worn 75–90 %")),
        (0.5, Swatch(cssClass: "w2", background: "#6baed6", meaning: "worn 50–75 %")),
        (Double.leastNonzeroMagnitude, Swatch(cssClass: "w1", background: "#c6dbef", meaning: "worn under 50 %")),
        (0, Swatch(cssClass: "w0", background: "#fdd0a2", meaning: "recorded, never worn")),
    ]

    /// A day over without any summary.
    package static let missing = Swatch(cssClass: "missing", background: "#d9d9d9", meaning: "no data")

    /// The page's own text colours on white: body, secondary text, attention, on track.
    package static let body = "#1a1a1a", meta = "#555555", attention = "#b00020", good = "#1b6e20", page = "#ffffff"

    /// The swatch of a day with a summary, by its worn share.
    package static func swatch(wornFraction: Double) -> Swatch {
        worn.first { wornFraction >= $0.minimum }?.swatch ?? worn[worn.count - 1].swatch
    }

    /// Every colour pair of the page, text on background, with what it is: what the contrast test reads.
    package static var pairs: [(what: String, text: String, background: String)] {
        (worn.map(\.swatch) + [missing]).map { ("\($0.cssClass) cell", $0.text, $0.background) }
            + [("body text", body, page), ("secondary text", meta, page), ("attention", attention, page), ("on track", good, page),
               ("table header", body, "#eeeeee")]
    }

    /// The CSS rules of the swatches.
    package static var css: String {
        (worn.map(\.swatch) + [missing]).map { ".\($0.cssClass) { background: \($0.background); color: \($0.text); }" }.joined(separator: " ")
    }
}
