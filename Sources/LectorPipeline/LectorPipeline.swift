// LectorPipeline: a camera, from its source to what it publishes.
//
// Owns Camera and CameraHub, the camera's frame sink (mailbox, counters, stack,
// recorder), the recognition loop (gate, stack, tracks, orientation), counters and
// timing windows, text reports, and rules with their hooks (Rules/). May import
// LectorImaging, LectorCapture, LectorLive, LectorRecognition, LectorProtocol and
// LectorSystem, and CICURegex (only Rules/RuleExpression.swift: ICU's bounded matching).
