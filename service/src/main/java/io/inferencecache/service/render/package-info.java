/**
 * RenderTemplate: renders a held PromptTemplate ({@code templates} module) with the request's
 * variables, and lines the stable prefix up with the engine's block hashes by tokenizing the
 * rendered prompt the way LookupRoute's {@code prompt_text} path does ({@link
 * io.inferencecache.service.prompt.PromptTokenizer}) and fingerprinting it with the engine's {@link
 * io.inferencecache.engine.fingerprint.Fingerprint}. Also the keyed tenant digest ({@code
 * tenant_namespace}) and the call counter hook.
 */
package io.inferencecache.service.render;
