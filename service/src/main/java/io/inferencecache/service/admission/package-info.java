/**
 * Which calls and connections the server takes under load: the handler pool with its aged queue,
 * the shedding rules and the connection limit. A shed call gets RESOURCE_EXHAUSTED or the answer of
 * a {@link io.inferencecache.service.admission.ShedResponder}.
 */
package io.inferencecache.service.admission;
