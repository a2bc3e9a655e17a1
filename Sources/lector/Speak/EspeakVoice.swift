/// The espeak-ng voice for a Tesseract language code.
public enum EspeakVoice {
    /// The voice when the language is unknown or has none.
    public static let fallback = "en"

    /// Tesseract's language codes (ISO 639-2/T, `chi_sim`) → espeak-ng voices
    /// (`espeak-ng --voices`); languages espeak-ng does not speak are left out.
    static let voices: [String: String] = [
        "afr": "af", "amh": "am", "ara": "ar", "asm": "as", "aze": "az", "bel": "be", "ben": "bn", "bos": "bs",
        "bul": "bg", "cat": "ca", "ces": "cs", "chi_sim": "cmn", "chi_tra": "cmn", "cym": "cy", "dan": "da",
        "deu": "de", "ell": "el", "eng": "en", "epo": "eo", "est": "et", "eus": "eu", "fas": "fa", "fin": "fi",
        "fra": "fr", "gla": "gd", "gle": "ga", "guj": "gu", "heb": "he", "hin": "hi", "hrv": "hr", "hun": "hu",
        "hye": "hy", "ind": "id", "isl": "is", "ita": "it", "jpn": "ja", "kan": "kn", "kat": "ka", "kaz": "kk",
        "kir": "ky", "kor": "ko", "lat": "la", "lav": "lv", "lit": "lt", "ltz": "lb", "mal": "ml", "mar": "mr",
        "mkd": "mk", "mlt": "mt", "mri": "mi", "msa": "ms", "mya": "my", "nep": "ne", "nld": "nl", "nor": "nb",
        "ori": "or", "pan": "pa", "pol": "pl", "por": "pt", "que": "qu", "ron": "ro", "rus": "ru", "sin": "si",
        "slk": "sk", "slv": "sl", "snd": "sd", "spa": "es", "sqi": "sq", "srp": "sr", "swa": "sw", "swe": "sv",
        "tam": "ta", "tat": "tt", "tel": "te", "tha": "th", "tur": "tr", "uig": "ug", "ukr": "uk", "urd": "ur",
        "uzb": "uz", "vie": "vi",
    ]

    /// The voice for a block's `language` (`eng`, `chi_sim`, `eng+fra`: the first);
    /// ``fallback`` when it is absent or espeak-ng has no voice for it.
    public static func voice(forTesseractLanguage language: String?) -> String {
        guard let language, let first = language.split(separator: "+").first else { return fallback }
        return voices[String(first)] ?? fallback
    }
}
