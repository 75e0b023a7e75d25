/**
 * Server TLS from PEM files: parsing the key pair, and a key manager that reloads it when the files
 * change on disk.
 */
package io.inferencecache.service.tls;
