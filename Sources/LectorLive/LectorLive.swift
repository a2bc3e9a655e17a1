// LectorLive: live text, which uses the stream's redundancy.
//
// Owns stacking (FrameStack, FrameStacker and the stacked frame's buffer), line tracks
// (LineTrack, LineTracker, TrackEvent) and the consensus vote over readings (TextVote).
// May import LectorImaging, LectorProtocol and LectorSystem only: it knows nothing of
// sources, recognition or cameras.
