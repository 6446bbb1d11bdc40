package server

var serverCommands = []command{}
