import Foundation

/// WCAG 2.x contrast of sRGB colours written `#rrggbb`: what a page's text needs on its background
/// to be read (AA: 4.5 : 1 for text, 3 : 1 for large text and the marks that carry meaning).
package enum Contrast {
    /// The AA minimum for normal text.
    package static let minimumText = 4.5

    /// The relative luminance (0 black ... 1 white) of `#rrggbb`; `nil` when it is not that form.
    package static func luminance(_ hex: String) -> Double? {
        let digits = Array(hex.utf8.dropFirst())
        guard hex.first == "#", digits.count == 6, let value = Int(String(decoding: digits, as: UTF8.self), radix: 16) else { return nil }
        func channel(_ shift: Int) -> Double {
            let c = Double((value >> shift) & 0xFF) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
    }

    /// The contrast ratio of two colours, 1 (none) to 21 (black on white); 1 when either is not `#rrggbb`.
    package static func ratio(_ a: String, _ b: String) -> Double {
        guard let la = luminance(a), let lb = luminance(b) else { return 1 }
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// Whichever of `dark` and `light` reads better on `background`.
    package static func text(on background: String, dark: String = "#1a1a1a", light: String = "#ffffff") -> String {
        ratio(dark, background) >= ratio(light, background) ? dark : light
    }
}
