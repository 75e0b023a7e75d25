/**
 * Prompt text to token ids for LookupRoute requests that carry a prompt: Hugging Face tokenizers,
 * their validation before native code sees them, and chat templates.
 */
package io.inferencecache.service.prompt;
