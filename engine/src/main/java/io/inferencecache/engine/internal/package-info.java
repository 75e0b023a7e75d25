/**
 * Not API: the engine's storage machinery, public only so that the {@code io.inferencecache.engine}
 * package can reach it. The prefix map of runs ({@code RunStore} and its parts, layout in {@code
 * RunLayout}), the heap block directory, the LFU counter arena, the string dictionary and the
 * per-scope state the index keeps; see engine/docs/design.md §2–§6. Other modules must not depend
 * on it: its classes change with the layout.
 */
package io.inferencecache.engine.internal;
