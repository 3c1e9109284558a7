package com.infernalsuite.asp.api.exceptions;

/* Test-only stand-in for ASP 4's SlimeException (see loaders/SlimeLoader.java). */
public class SlimeException extends Exception {

    public SlimeException(String message) {
        super(message);
    }

    public SlimeException(String message, Exception cause) {
        super(message, cause);
    }
}
