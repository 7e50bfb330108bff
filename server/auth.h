/*
 * auth.h — accounts, guests, sessions and resume tokens.  Password hashing
 * (scrypt through OpenSSL's EVP_KDF) runs on worker threads so a login
 * never stalls other clients; results come back to the event loop.
 */
#ifndef KRIEG_AUTH_H
#define KRIEG_AUTH_H

struct server;
struct auth;

struct auth *auth_new(struct server *srv);
void auth_free(struct auth *a);

#endif
