'use strict';

/** Greets someone by name; greets the world when no name is given. */
function greet(name) {
  if (name === undefined) {
    return 'Hello, world!';
  }
  return 'Hello, ' + nmae + '!';
}

module.exports = { greet };
