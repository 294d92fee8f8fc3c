// The feeds room's one door: live feeds of what is recorded, published after commit (the feed log
// is the commit path's journal), resumable from the log, shared across instances by a broadcast.
export { FEED_POLL_INTERVAL_MS, type FeedBroadcast, type FeedNotice, type FeedSharingStatus, singleInstanceBroadcast } from "./feed-broadcast";
export { FeedOverflowError, FeedPositionUnknownError, FeedReplayWindowError } from "./feed-errors";
export { FEED_PAGE, type FeedLogger } from "./feed-hub";
export { FeedLog } from "./feed-log";
export type { FeedEvent, LineageAdded, RunFilter, RunRecorded, RunStatusChange } from "./feed-matchers";
export type { FeedItem } from "./feed-subscription";
export { DEFAULT_FEED_OPTIONS, type FeedOptions, Feeds, type FeedSince, type FeedStats } from "./feeds";
export type { LineageKey } from "./lineage-reach";
