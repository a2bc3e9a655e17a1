import LectorProtocol

/// What a read says about the language it was read in (`--lang auto`): its words'
/// confidence, and its letters by script, with the Han forms only simplified Chinese
/// writes (边, 时, 车) and those only Japanese writes (辺, 駅, 気). OSD names Chinese and
/// kanji-only Japanese alike "Han" and misnames a sign of a few characters; the
/// characters a language reads decide instead (``ScriptLanguages/candidates(script:installed:)``).
struct LanguageEvidence {
    /// Words read, and their confidences' sum.
    var words = 0
    var confidenceSum = 0.0
    /// Letters (digits, punctuation and symbols left out) in the read language's own
    /// script, and all letters.
    var ownLetters = 0
    var letters = 0
    /// Han, kana, and Han characters only simplified Chinese or only Japanese writes.
    var han = 0
    var kana = 0
    var simplifiedOnly = 0
    var japaneseOnly = 0
    /// Characters weighted by their word's confidence, own-script letters only: what a
    /// read that fits nothing is ranked by.
    var weightedLetters = 0.0

    /// A read fits its language when its words' mean confidence reaches this: the right
    /// language read the signs of scripts/make-script-frames.py at 0.88–1.00, a wrong
    /// one at 0.00–0.75 (docs/recognition.md).
    static let fitConfidence = 0.8

    /// The evidence of `text`, read in `language` (Tesseract's name, one language).
    init(_ text: RecognizedText, language: String) {
        let own = Self.ownScript(of: language)
        for word in text.words {
            words += 1
            confidenceSum += word.confidence
            for scalar in word.text.unicodeScalars {
                guard let script = Script(scalar) else { continue }
                letters += 1
                if own.contains(script) {
                    ownLetters += 1
                    weightedLetters += word.confidence
                }
                if script == .han { han += 1 }
                if script == .kana { kana += 1 }
                if Self.simplifiedOnlyForms.contains(scalar) { simplifiedOnly += 1 }
                if Self.japaneseOnlyForms.contains(scalar) { japaneseOnly += 1 }
            }
        }
    }

    var meanConfidence: Double { words == 0 ? 0 : confidenceSum / Double(words) }

    /// A read fits with at least this many letters of its language's script (or with
    /// no letter at all, digits alone): Japanese read a Korean sign of two lines as
    /// "0| き" at 0.90.
    static let fitLetters = 2

    /// Whether the read looks right for `language`: words read with confidence, mostly in
    /// the language's script (two letters of it at least); for Chinese, no kana and no
    /// form only Japanese writes; for Japanese, kana or such a form when it read Han (Han
    /// alone is read in Chinese too).
    func fits(_ language: String) -> Bool {
        guard words > 0, meanConfidence >= Self.fitConfidence, 2 * ownLetters >= letters,
              ownLetters >= Self.fitLetters || letters == 0 else { return false }
        switch language {
        case "chi_sim": return kana == 0 && japaneseOnly == 0
        case "jpn": return kana > 0 || japaneseOnly > 0 || han == 0
        default: return true
        }
    }

    /// Whether this read (in `language`) is better than `other` (in `otherLanguage`):
    /// one that fits beats one that does not; of a Chinese and a Japanese read of the
    /// frame, kana or Japanese-only forms read confidently by Japanese make it Japanese,
    /// simplified-only forms read confidently by Chinese make it Chinese, else the more
    /// confident (Chinese when they are as confident: a kanji-only Japanese sign reads
    /// the same characters); otherwise the more confident, then the more letters
    /// weighted by confidence.
    func isBetter(in language: String, than other: LanguageEvidence, in otherLanguage: String) -> Bool {
        let fit = fits(language), otherFit = other.fits(otherLanguage)
        if fit != otherFit { return fit }
        if let han = Self.hanChoice(language, self, otherLanguage, other) { return han == language }
        if fit { return meanConfidence > other.meanConfidence }
        return weightedLetters > other.weightedLetters
    }

    /// Chinese or Japanese, from the forms each read of the same frame found and their
    /// confidence (nil: the two are not a Chinese and a Japanese read, or neither is
    /// confident).
    private static func hanChoice(_ a: String, _ first: LanguageEvidence, _ b: String, _ second: LanguageEvidence) -> String? {
        let pair = [a: first, b: second]
        guard let chinese = pair["chi_sim"], let japanese = pair["jpn"],
              chinese.meanConfidence >= fitConfidence || japanese.meanConfidence >= fitConfidence else { return nil }
        if japanese.kana > 0, japanese.meanConfidence >= fitConfidence { return "jpn" }
        let simplified = chinese.simplifiedOnly > 0 && chinese.meanConfidence >= fitConfidence
        let japaneseForms = japanese.japaneseOnly > 0 && japanese.meanConfidence >= fitConfidence
        if simplified != japaneseForms { return simplified ? "chi_sim" : "jpn" }
        return chinese.meanConfidence >= japanese.meanConfidence ? "chi_sim" : "jpn"
    }

    /// The scripts whose letters count as a language's own.
    private static func ownScript(of language: String) -> Set<Script> {
        switch language {
        case "chi_sim", "chi_tra": [.han]
        case "jpn": [.han, .kana]
        case "kor": [.hangul, .han]
        case "hin", "mar", "nep", "san": [.devanagari]
        case "eng": [.latin]
        default: Set(Script.allCases)
        }
    }

    /// The scripts told apart.
    enum Script: CaseIterable {
        case latin, han, kana, hangul, devanagari, other

        /// A letter's script; nil for what is not a letter (digits, punctuation, symbols).
        init?(_ scalar: Unicode.Scalar) {
            let value = scalar.value
            switch value {
            case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F: self = .latin
            case 0x4E00...0x9FFF, 0x3400...0x4DBF: self = .han
            case 0x3041...0x309F, 0x30A1...0x30FA, 0x30FC...0x30FF, 0x31F0...0x31FF: self = .kana
            case 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: self = .hangul
            case 0x900...0x97F: self = .devanagari
            default:
                guard scalar.properties.isAlphabetic else { return nil }
                self = .other
            }
        }
    }

    /// Common simplified forms that Japanese writes otherwise (边 for 辺, 时 for 時).
    static let simplifiedOnlyForms = Set(("边时间车东门马鸟书见长头这说话语请让认记讲计设识证该读谁调质购货费资贵买卖厅广应开关电乐飞发变们从"
        + "为业个务动华卫历问启员团园围图圆场坏块处备复够夺奋奖妇妈宁实对寻导层岁岛币师帮带库录态恶战户无显杂权极构标树样桥梦"
        + "检欢气汉汤测济浓满灭烟热爱环现监盖盘码确穷签类粮紧线练组细织终经结给络绝统绿编罗职联脑脸节艺药获营虑虽补观规视览觉"
        + "讨训议许论访评诉词译试诗诚询详误谈谢负贡财责败贩贪贯贴贷贸贺赏赔赛趋跃轨转轮软轻载较辆辈输达迁过运还进远违连迟适选"
        + "递遗邮邻释针钟钢钱铁铃银销锁锅错键闭闲阅队阳阶际陆陈险难须顶项顺顾预领频题额风饭饮馆驶驾验鱼鲜鸡龙侧").unicodeScalars)

    /// Common forms only Japanese writes (the shinjitai that differ from both simplified
    /// and traditional Chinese, and 駅): 辺 for 边, 駅 for 站's 驿.
    static let japaneseOnlyForms = Set(("辺駅気広営売読説転変図円県検険験帰関観歓鉄浜様沢戦単対団弾駆歩発仏総続薬楽両黒悪圧渋乗譲"
        + "桜栄価済斎剤雑児釈収従獣縦処焼証剰壌嬢畳嘱寝粋酔斉専繊銭捜巣荘騒増蔵臓滝択遅昼鋳聴懲鎮逓稲闘徳届悩脳廃拝髪抜賓頻払"
        + "併塀舗穂豊毎黙訳揺謡覧竜猟緑涙塁霊齢暦歴労録").unicodeScalars)
}
