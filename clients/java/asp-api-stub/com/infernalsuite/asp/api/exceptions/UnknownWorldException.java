package com.infernalsuite.asp.api.exceptions;

/* Test-only stand-in for ASP 4's UnknownWorldException (see loaders/SlimeLoader.java). */
public class UnknownWorldException extends SlimeException {

    public UnknownWorldException(String world) {
        super("Unknown world " + world);
    }
}
