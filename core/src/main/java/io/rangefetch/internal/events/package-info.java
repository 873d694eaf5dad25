/**
 * The JDK Flight Recorder events Rangefetch emits: one per GET attempt, HEAD and LIST, per read that waited, per
 * prefetched range evicted unread, per throttle limit change, per cache eviction and budget refusal, and per
 * factory and stream open and close. Their names, fields and categories are documented in docs/OBSERVABILITY.md;
 * {@code ./rangefetch-timeline} turns a recording into a timeline. An event costs nothing but a disabled check
 * while no recording asks for it. No field holds a secret: identities never appear, only buckets and keys.
 */
package io.rangefetch.internal.events;
