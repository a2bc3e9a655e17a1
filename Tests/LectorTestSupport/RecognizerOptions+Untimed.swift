import LectorRecognition

extension RecognizerOptions {
    /// The defaults with a deadline no test run reaches (ten minutes): a unit test checks
    /// what is read, not how fast, and CI runs beside other work on a loaded machine,
    /// where a 1280×720 read has been seen to pass the 3000 ms default.
    public static var untimed: RecognizerOptions {
        var options = RecognizerOptions()
        options.deadlineMilliseconds = 600_000
        return options
    }
}
