'use strict';
// Jest runs tests in their own realm, with their own Float32Array. onnxruntime-node returns the
// model's outputs as Float32Arrays of the host realm and onnxruntime-common checks them with
// `instanceof Float32Array` of the test realm, which then fails ("A float32 tensor's data must be
// type of function Float32Array()"). The test realm gets the host's constructor, as a service
// process (one realm) has.
const { TestEnvironment } = require('jest-environment-node');

class HostTypedArraysEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.Float32Array = Float32Array;
  }
}

module.exports = HostTypedArraysEnvironment;
