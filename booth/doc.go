// Package booth drives the photo booth's hardware: a shutter button and a
// status LED on GPIO pins, read through periph.io's Linux character-device
// driver (gpioioctl), which works on the Raspberry Pi 3, 4 and 5.
//
// The pieces:
//
//   - [Debouncer] is a pure state machine that turns raw button samples into
//     presses. It is driven by the caller's clock, so it is tested with
//     synthetic times.
//   - [Device] is the hardware seen by the daemon: [Open] returns the real
//     one ([GPIO]) when the pins exist, and a no-op one ([NoOp]) when no pins
//     are configured or the machine has no GPIO, so the daemon runs the same
//     way on a laptop.
//   - [Hub] fans plain booth messages (button triggers, status) out to
//     subscribers by event. It knows nothing of HTTP: the daemon subscribes
//     each booth page's stream and writes it as Server-Sent Events.
//
// Wiring expected by this package: the button connects its pin to ground
// (the pin's internal pull-up holds it high, so a press is a falling edge);
// the LED is driven active-high (pin → resistor → LED → ground).
package booth
