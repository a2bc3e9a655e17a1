// LectorPipeline: a camera, from its source to what it publishes.
//
// Owns Camera and CameraHub, the camera's frame sink (mailbox, counters, stack,
// recorder), the recognition loop (gate, stack, tracks, orientation), counters and
// timing windows, text reports, rules with their hooks (Rules/), and what is kept of
// their MATCHes: evidence files and the history's writer (History/). May import
// LectorImaging, LectorCapture, LectorLive, LectorRecognition, LectorHistory,
// LectorProtocol and LectorSystem, and CICURegex (only Rules/RuleExpression.swift: ICU's
// bounded matching).
